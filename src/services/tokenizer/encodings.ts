/**
 * The two gpt-tokenizer encodings, loaded on first use, with the one fix gpt-tokenizer 4.0.0 needs to
 * agree with tiktoken (U+FEFF merges) and byte access to its tokens for look-ahead cuts and `decode`.
 * gpt-tokenizer is pure JS and ships its ranks, so nothing is fetched.
 */

export type EncodingName = 'o200k_base' | 'cl100k_base';

export type GptEncodingModule = typeof import('gpt-tokenizer/encoding/o200k_base');

export const ENCODE_OPTIONS = {
  // An empty disallow list (and no allow list): special-token strings are encoded as ordinary text
  // instead of throwing "Disallowed special token found".
  disallowedSpecial: new Set<string>(),
};

function requireEncoding(encoding: EncodingName): GptEncodingModule {
  // Literal requires, loaded on first use (each encoding costs ~0.3-0.4 s and ~20-40 MB).
  switch (encoding) {
    case 'o200k_base':
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('gpt-tokenizer/encoding/o200k_base') as GptEncodingModule;
    case 'cl100k_base':
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('gpt-tokenizer/encoding/cl100k_base') as GptEncodingModule;
    default:
      throw new Error(`Unknown encoding "${String(encoding)}" (expected o200k_base or cl100k_base)`);
  }
}

/** The parts of gpt-tokenizer's (private) BytePairEncodingCore this module relies on. */
interface BpeCore {
  bytePairRankDecoder: readonly (string | readonly number[] | undefined)[];
  bytePairNonUtfSortedEncoder: readonly (readonly [Uint8Array, number])[];
  getBpeRankFromBytes(key: Uint8Array): number | undefined;
  binarySearch(key: Uint8Array): number;
}

function bpeCore(mod: GptEncodingModule): BpeCore | undefined {
  const core = (mod.default as unknown as { bytePairEncodingCoreProcessor?: Partial<BpeCore> }).bytePairEncodingCoreProcessor;
  if (
    core &&
    Array.isArray(core.bytePairRankDecoder) &&
    Array.isArray(core.bytePairNonUtfSortedEncoder) &&
    typeof core.getBpeRankFromBytes === 'function' &&
    typeof core.binarySearch === 'function'
  ) {
    return core as BpeCore;
  }
  return undefined;
}

/**
 * gpt-tokenizer 4.0.0 bug: it turns candidate merges into strings with a `TextDecoder` that strips a
 * leading byte-order mark, so EF BB BF (U+FEFF) never merges: `\uFEFF` becomes 2 tokens instead of 1
 * and the vocabulary's BOM-prefixed tokens (`\uFEFFusing`, `\uFEFF//`, …) are never produced, unlike
 * tiktoken. Those tokens are stored as bytes, so look byte keys that start with a BOM up directly.
 */
function patchBomMerges(core: BpeCore): void {
  const original = core.getBpeRankFromBytes;
  core.getBpeRankFromBytes = function (this: BpeCore, key: Uint8Array): number | undefined {
    if (key.length >= 3 && key[0] === 0xef && key[1] === 0xbb && key[2] === 0xbf) {
      const i = this.binarySearch(key);
      return i === -1 ? undefined : this.bytePairNonUtfSortedEncoder[i][1];
    }
    return original.call(this, key);
  };
}

export interface LoadedEncoding {
  mod: GptEncodingModule;
  /** UTF-8 bytes of a token; undefined when gpt-tokenizer's internals are not as expected. */
  tokenBytes: ((id: number) => Uint8Array | undefined) | undefined;
}

export const utf8 = new TextEncoder();

const loadedEncodings = new Map<EncodingName, LoadedEncoding>();

/** The encoding's module and token bytes, loaded (and patched) once per process. */
export function loadEncoding(encoding: EncodingName): LoadedEncoding {
  let loaded = loadedEncodings.get(encoding);
  if (loaded) return loaded;
  const mod = requireEncoding(encoding);
  const core = bpeCore(mod);
  if (!core) {
    loaded = { mod, tokenBytes: undefined };
  } else {
    patchBomMerges(core);
    mod.clearMergeCache(); // in case something encoded a U+FEFF before the patch
    const table = core.bytePairRankDecoder;
    loaded = {
      mod,
      tokenBytes: (id) => {
        const v = table[id];
        if (typeof v === 'string') return utf8.encode(v);
        return v ? Uint8Array.from(v) : undefined;
      },
    };
  }
  loadedEncodings.set(encoding, loaded);
  return loaded;
}
