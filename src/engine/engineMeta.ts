import type { EngineMeta } from './encodedState';
import type { EngineOptions } from './turnTypes';
import { DEFAULT_THRESHOLDS } from './budget';
import { canonicalJson } from './stateDigest';
import { sha256Hex } from '../common/hash';

/** The engine options that decide rendering, as saved with a chat, and how two of them differ. */

/**
 * sha256 of the prompt and instruction texts, kept: `engineMeta` runs at every save, the texts
 * rarely change, and the engine's pure-JS sha256 of a project's instructions costs a fraction of a
 * millisecond each time. A handful of texts at most (cleared past 16).
 */
const metaHashes = new Map<string, string>();
function metaHash(text: string): string {
  let h = metaHashes.get(text);
  if (h === undefined) {
    if (metaHashes.size >= 16) metaHashes.clear();
    h = sha256Hex(text);
    metaHashes.set(text, h);
  }
  return h;
}

export function engineMeta(
  o: Pick<
    EngineOptions,
    | 'conversationId'
    | 'layout'
    | 'policy'
    | 'tokenizer'
    | 'limits'
    | 'thresholds'
    | 'keepRecentTurns'
    | 'system'
    | 'instructions'
    | 'summarizer'
  >,
): EngineMeta {
  const t = o.thresholds ?? DEFAULT_THRESHOLDS;
  return {
    conversationId: o.conversationId,
    layout: o.layout,
    policy: o.policy,
    encoding: o.tokenizer.encoding,
    limits: { contextWindow: o.limits.contextWindow, maxOutputTokens: o.limits.maxOutputTokens },
    thresholds: { warnPercent: t.warnPercent, compactPercent: t.compactPercent, targetPercent: t.targetPercent },
    keepRecentTurns: o.keepRecentTurns ?? 4,
    systemHash: metaHash(o.system),
    instructions: (o.instructions ?? []).map((i) => ({ source: i.source, hash: metaHash(i.text) })),
    summarizer: o.summarizer ? 'custom' : 'extractive',
  };
}

/**
 * Differences that change how a loaded state renders, as short sentences (empty: same rendering).
 * The conversation id is ignored: it is not part of any message.
 */
export function compareEngineMeta(saved: EngineMeta, current: EngineMeta): string[] {
  const out: string[] = [];
  const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
  if (saved.layout !== current.layout) out.push(`layout was ${saved.layout}, now ${current.layout}`);
  if (saved.policy !== current.policy) out.push(`changed-files policy was ${saved.policy}, now ${current.policy}`);
  if (saved.encoding !== current.encoding) out.push(`token encoding was ${saved.encoding}, now ${current.encoding}`);
  if (!same(saved.limits, current.limits))
    out.push(`model limits were ${canonicalJson(saved.limits)}, now ${canonicalJson(current.limits)}`);
  if (!same(saved.thresholds, current.thresholds))
    out.push(`budget thresholds were ${canonicalJson(saved.thresholds)}, now ${canonicalJson(current.thresholds)}`);
  if (saved.keepRecentTurns !== current.keepRecentTurns)
    out.push(`verbatim history turns were ${saved.keepRecentTurns}, now ${current.keepRecentTurns}`);
  if (saved.systemHash !== current.systemHash) out.push('the system prompt changed');
  if (!same(saved.instructions, current.instructions)) out.push('the instructions changed');
  if (saved.summarizer !== current.summarizer) out.push(`summarizer was ${saved.summarizer}, now ${current.summarizer}`);
  return out;
}
