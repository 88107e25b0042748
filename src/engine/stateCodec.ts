/**
 * Chat state ⇄ JSON. Pure: no Node built-ins, no vscode.
 *
 * `encodeState` turns a `ChatState` into a JSON-safe object in which every artifact snapshot (and
 * every compacted preview body) is replaced by a content-addressed blob reference; `stateBlobs`
 * lists the blobs to store; `decodeState` validates an encoded object and rebuilds the state,
 * fetching snapshots through `getBlob`. A decoded state renders byte-identical requests: every
 * field the engine reads is kept, including Map insertion order (which decides the order in which
 * changed files become new versions) and the previous request's block hashes (cache prediction).
 *
 * The saved form's types (encodedState), the engine options saved with it (engineMeta), its deltas
 * (stateDelta) and digests (stateDigest) are their own modules, re-exported here so that a caller
 * imports the format from one place.
 *
 * Blob names are the sha256 hex of the blob's UTF-8 bytes. For a snapshot that is valid Unicode the
 * blob is the content itself and its name is the artifact's `contentHash`. A snapshot holding a lone
 * surrogate cannot survive UTF-8, so its blob is the JSON string literal of the content
 * (`blobEncoding: "json"`) named by that literal's hash.
 */
import type {
  ChatState,
  EntryState,
  HistorySummary,
  Presence,
  StepResult,
  ToolStepRecord,
  TurnItem,
  TurnItemMode,
  TurnRecord,
} from './state';
import type { ArtifactKind } from './types';
import type { BlobEncoding, EncodedArtifact, EncodedCompacted, EncodedEntry, EncodedState, EngineMeta } from './encodedState';
import { STATE_FORMAT, STATE_FORMAT_VERSION } from './encodedState';
import { arr, bool, describe, fail, hex, int, isObj, oneOf, str } from './stateChecks';
import { versionKey } from './artifacts';
import { sha256Hex } from '../common/hash';

export * from './encodedState';
export * from './engineMeta';
export * from './stateDelta';
export * from './stateDigest';

// ------------------------------------------------------------------ encode

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` survives a UTF-8 round trip (no lone surrogates). */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

export interface Blob {
  /** sha256 hex of `text`'s UTF-8 bytes: the blob's name. */
  hash: string;
  text: string;
}

/** The blob that stores `content` whose sha256 is `contentHash`. */
export function blobFor(content: string, contentHash: string): Blob & { encoding?: BlobEncoding } {
  if (isWellFormed(content)) return { hash: contentHash, text: content };
  const text = JSON.stringify(content);
  return { hash: sha256Hex(text), text, encoding: 'json' };
}

function encodeEntry(e: EntryState): EncodedEntry {
  const a = e.artifact;
  const source: EncodedArtifact['source'] = a.source.range
    ? { uri: a.source.uri, range: { startLine: a.source.range.startLine, endLine: a.source.range.endLine } }
    : { uri: a.source.uri };
  const artifact: EncodedArtifact = {
    id: a.id,
    kind: a.kind,
    source,
    recoverable: a.recoverable,
    contentHash: a.contentHash,
    version: a.version,
    priority: a.priority,
    essential: a.essential,
  };
  if (!isWellFormed(a.content)) {
    const b = blobFor(a.content, a.contentHash);
    artifact.blob = b.hash;
    artifact.blobEncoding = 'json';
  }
  const out: EncodedEntry = {
    key: e.key,
    artifact,
    firstTurn: e.firstTurn,
    presence: e.presence,
    superseded: e.superseded,
    missing: e.missing,
    essential: e.essential,
  };
  if (e.compacted) {
    const c: EncodedCompacted = { bodyHash: e.compacted.bodyHash, keptLines: e.compacted.keptLines, totalLines: e.compacted.totalLines };
    if (!isWellFormed(e.compacted.body)) {
      const b = blobFor(e.compacted.body, e.compacted.bodyHash);
      c.blob = b.hash;
      c.blobEncoding = 'json';
    }
    out.compacted = c;
  }
  if (e.inPlaceOf !== undefined) out.inPlaceOf = e.inPlaceOf;
  if (e.requestedEndLine !== undefined) out.requestedEndLine = e.requestedEndLine;
  if (e.tool !== undefined) out.tool = e.tool;
  if (e.withdrawn !== undefined) out.withdrawn = e.withdrawn;
  return out;
}

function encodeStep(step: ToolStepRecord): ToolStepRecord {
  return {
    text: step.text,
    calls: step.calls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(JSON.stringify(c.args)) as Record<string, unknown> })),
    results: step.results.map((r) => {
      const out: StepResult = { callId: r.callId, tool: r.tool, items: r.items.map((i) => ({ key: i.key, mode: i.mode })) };
      if (r.note !== undefined) out.note = r.note;
      if (r.range) out.range = { startLine: r.range.startLine, endLine: r.range.endLine };
      return out;
    }),
  };
}

function encodeTurn(t: TurnRecord): TurnRecord {
  const out: TurnRecord = { turn: t.turn, userText: t.userText, items: t.items.map((i) => ({ key: i.key, mode: i.mode })), reply: t.reply };
  if (t.steps && t.steps.length > 0) out.steps = t.steps.map(encodeStep);
  return out;
}

/**
 * Encoded forms a caller kept from an earlier encoding (a store saving turn after turn): returned
 * when they still describe the object, instead of encoding it again. Undefined: encode it.
 */
export interface EncodeReuse {
  entry?(e: EntryState): EncodedEntry | undefined;
  /** `i`: the turn's index in the state's turns. */
  turn?(t: TurnRecord, i: number): TurnRecord | undefined;
}

/**
 * A JSON-safe copy of `state` with artifact contents replaced by blob references (see `stateBlobs`).
 * `engine` records the options in force (layout, policy, model limits, system/instructions hashes).
 */
export function encodeState(state: ChatState, opts: { engine?: EngineMeta; reuse?: EncodeReuse } = {}): EncodedState {
  const reuseEntry = opts.reuse?.entry;
  const reuseTurn = opts.reuse?.turn;
  const out: EncodedState = {
    format: STATE_FORMAT,
    version: STATE_FORMAT_VERSION,
    completedTurns: state.completedTurns,
    entries: [...state.entries.values()].map(reuseEntry ? (e) => reuseEntry(e) ?? encodeEntry(e) : encodeEntry),
    latest: [...state.latest],
    versions: [...state.versions],
    order: state.order.slice(),
    turns: state.turns.map(reuseTurn ? (t, i) => reuseTurn(t, i) ?? encodeTurn(t) : (t) => encodeTurn(t)),
    previousBlocks: state.previousBlocks.slice(),
  };
  if (state.summary) out.summary = { throughTurn: state.summary.throughTurn, text: state.summary.text };
  if (opts.engine) out.engine = JSON.parse(JSON.stringify(opts.engine)) as EngineMeta;
  return out;
}

/** The blobs one entry needs (its snapshot, and its compacted preview body if any). */
export function entryBlobs(e: EntryState): Blob[] {
  const out: Blob[] = [blobFor(e.artifact.content, e.artifact.contentHash)];
  if (e.compacted) out.push(blobFor(e.compacted.body, e.compacted.bodyHash));
  return out.map((b) => ({ hash: b.hash, text: b.text }));
}

/** Every blob `state` references, deduplicated, in first-use order. */
export function stateBlobs(state: ChatState, keys?: Iterable<string>): Blob[] {
  const seen = new Map<string, Blob>();
  const list = keys ? [...keys].map((k) => state.entries.get(k)).filter((e): e is EntryState => !!e) : [...state.entries.values()];
  for (const e of list) for (const b of entryBlobs(e)) if (!seen.has(b.hash)) seen.set(b.hash, b);
  return [...seen.values()];
}

/** Blob names an encoded state references. */
export function referencedBlobs(enc: EncodedState): string[] {
  const out = new Set<string>();
  for (const e of enc.entries) {
    out.add(e.artifact.blob ?? e.artifact.contentHash);
    if (e.compacted) out.add(e.compacted.blob ?? e.compacted.bodyHash);
  }
  return [...out];
}

// ------------------------------------------------------------------ decode (with validation)

const KINDS: readonly ArtifactKind[] = ['file', 'selection', 'diagnostics', 'folder', 'tool', 'text'];
const PRESENCES: readonly Presence[] = ['present', 'detached', 'pruned', 'replaced'];
const MODES: readonly TurnItemMode[] = ['full', 'reference', 'missing'];
const BLOCK = /^(system|user|assistant|tool):[0-9a-f]{64}$/;
function fetchBlob(getBlob: (hash: string) => string, name: string, encoding: unknown, expectHash: string, where: string): string {
  let raw: string;
  try {
    raw = getBlob(name);
  } catch (e) {
    fail(where, (e as Error).message);
  }
  if (typeof raw !== 'string') fail(where, `blob ${name} is missing`);
  let text = raw;
  if (encoding === 'json') {
    try {
      text = JSON.parse(raw) as string;
    } catch {
      fail(where, `blob ${name} is not a JSON string`);
    }
    if (typeof text !== 'string') fail(where, `blob ${name} is not a JSON string`);
  } else if (encoding !== undefined) fail(`${where}.blobEncoding`, `unknown encoding ${describe(encoding)}`);
  if (sha256Hex(text) !== expectHash) fail(where, `blob ${name} does not match its sha256 ${expectHash.slice(0, 12)}…`);
  return text;
}

function decodeRange(v: unknown, where: string): { startLine: number; endLine: number } | undefined {
  if (v === undefined) return undefined;
  if (!isObj(v)) fail(where, 'must be {startLine, endLine}');
  const startLine = int(v.startLine, `${where}.startLine`, 1);
  const endLine = int(v.endLine, `${where}.endLine`, startLine);
  return { startLine, endLine };
}

function decodeEntry(v: unknown, where: string, getBlob: (hash: string) => string): EntryState {
  if (!isObj(v)) fail(where, 'must be an object');
  const key = str(v.key, `${where}.key`);
  const w = `${where} (${key})`;
  const a = v.artifact;
  if (!isObj(a)) fail(`${w}.artifact`, 'must be an object');
  const id = str(a.id, `${w}.artifact.id`);
  const version = int(a.version, `${w}.artifact.version`, 1);
  if (versionKey(id, version) !== key) fail(w, `key does not match id ${JSON.stringify(id)} version ${version}`);
  const src = a.source;
  if (!isObj(src)) fail(`${w}.artifact.source`, 'must be {uri, range?}');
  const uri = str(src.uri, `${w}.artifact.source.uri`);
  const range = decodeRange(src.range, `${w}.artifact.source.range`);
  const contentHash = hex(a.contentHash, `${w}.artifact.contentHash`);
  const blobName = a.blob === undefined ? contentHash : hex(a.blob, `${w}.artifact.blob`);
  const content = fetchBlob(getBlob, blobName, a.blobEncoding, contentHash, `${w} snapshot`);
  const entry: EntryState = {
    artifact: {
      id,
      kind: oneOf(a.kind, KINDS, `${w}.artifact.kind`),
      source: range ? { uri, range } : { uri },
      recoverable: bool(a.recoverable, `${w}.artifact.recoverable`),
      content,
      contentHash,
      version,
      priority: int(a.priority, `${w}.artifact.priority`),
      essential: bool(a.essential, `${w}.artifact.essential`),
    },
    key,
    firstTurn: int(v.firstTurn, `${w}.firstTurn`, 1),
    presence: oneOf(v.presence, PRESENCES, `${w}.presence`),
    superseded: bool(v.superseded, `${w}.superseded`),
    missing: bool(v.missing, `${w}.missing`),
    essential: bool(v.essential, `${w}.essential`),
  };
  if (v.compacted !== undefined) {
    const c = v.compacted;
    if (!isObj(c)) fail(`${w}.compacted`, 'must be an object');
    const bodyHash = hex(c.bodyHash, `${w}.compacted.bodyHash`);
    const name = c.blob === undefined ? bodyHash : hex(c.blob, `${w}.compacted.blob`);
    entry.compacted = {
      body: fetchBlob(getBlob, name, c.blobEncoding, bodyHash, `${w} compacted preview`),
      bodyHash,
      keptLines: int(c.keptLines, `${w}.compacted.keptLines`),
      totalLines: int(c.totalLines, `${w}.compacted.totalLines`),
    };
  }
  if (v.inPlaceOf !== undefined) entry.inPlaceOf = str(v.inPlaceOf, `${w}.inPlaceOf`);
  if (v.requestedEndLine !== undefined) {
    entry.requestedEndLine = int(v.requestedEndLine, `${w}.requestedEndLine`);
  }
  if (v.tool !== undefined) entry.tool = str(v.tool, `${w}.tool`);
  if (v.withdrawn !== undefined) {
    if (v.withdrawn !== 'excluded' && v.withdrawn !== 'outside-workspace')
      fail(`${w}.withdrawn`, "must be 'excluded' or 'outside-workspace'");
    entry.withdrawn = v.withdrawn;
  }
  return entry;
}

function decodeStep(v: unknown, where: string): ToolStepRecord {
  if (!isObj(v)) fail(where, 'must be {text, calls, results}');
  const calls = arr(v.calls, `${where}.calls`).map((c, k) => {
    if (!isObj(c) || !isObj(c.args)) fail(`${where}.calls[${k}]`, 'must be {id, name, args}');
    return {
      id: str(c.id, `${where}.calls[${k}].id`),
      name: str(c.name, `${where}.calls[${k}].name`),
      args: c.args as Record<string, unknown>,
    };
  });
  const results = arr(v.results, `${where}.results`).map((r, k) => {
    const rw = `${where}.results[${k}]`;
    if (!isObj(r)) fail(rw, 'must be {callId, tool, items, note?}');
    const items: TurnItem[] = arr(r.items, `${rw}.items`).map((i, j) => {
      if (!isObj(i)) fail(`${rw}.items[${j}]`, 'must be {key, mode}');
      return { key: str(i.key, `${rw}.items[${j}].key`), mode: oneOf(i.mode, MODES, `${rw}.items[${j}].mode`) };
    });
    const out: StepResult = { callId: str(r.callId, `${rw}.callId`), tool: str(r.tool, `${rw}.tool`), items };
    if (r.note !== undefined) out.note = str(r.note, `${rw}.note`);
    const range = decodeRange(r.range, `${rw}.range`);
    if (range) out.range = range;
    return out;
  });
  if (results.length !== calls.length || results.some((r, k) => r.callId !== calls[k].id))
    fail(where, 'needs one result per call, in order');
  return { text: str(v.text, `${where}.text`), calls, results };
}

function decodeTurn(v: unknown, where: string): TurnRecord {
  if (!isObj(v)) fail(where, 'must be an object');
  const items: TurnItem[] = arr(v.items, `${where}.items`).map((i, k) => {
    if (!isObj(i)) fail(`${where}.items[${k}]`, 'must be {key, mode}');
    return { key: str(i.key, `${where}.items[${k}].key`), mode: oneOf(i.mode, MODES, `${where}.items[${k}].mode`) };
  });
  const out: TurnRecord = {
    turn: int(v.turn, `${where}.turn`, 1),
    userText: str(v.userText, `${where}.userText`),
    items,
    reply: str(v.reply, `${where}.reply`),
  };
  if (v.steps !== undefined) out.steps = arr(v.steps, `${where}.steps`).map((st, k) => decodeStep(st, `${where}.steps[${k}]`));
  return out;
}

function decodeEngineMeta(v: unknown): EngineMeta {
  const w = 'engine';
  if (!isObj(v)) fail(w, 'must be an object');
  const lim = v.limits;
  if (!isObj(lim)) fail(`${w}.limits`, 'must be an object');
  const th = v.thresholds;
  if (!isObj(th)) fail(`${w}.thresholds`, 'must be an object');
  const num = (x: unknown, where: string): number => {
    if (typeof x !== 'number' || !Number.isFinite(x)) fail(where, 'must be a number');
    return x;
  };
  return {
    conversationId: str(v.conversationId, `${w}.conversationId`),
    layout: oneOf(v.layout, ['library', 'transcript'] as const, `${w}.layout`),
    policy: oneOf(v.policy, ['append-version', 'append-diff', 'refresh-in-place'] as const, `${w}.policy`),
    encoding: str(v.encoding, `${w}.encoding`),
    limits: {
      contextWindow: int(lim.contextWindow, `${w}.limits.contextWindow`, 1),
      maxOutputTokens: int(lim.maxOutputTokens, `${w}.limits.maxOutputTokens`),
    },
    thresholds: {
      warnPercent: num(th.warnPercent, `${w}.thresholds.warnPercent`),
      compactPercent: num(th.compactPercent, `${w}.thresholds.compactPercent`),
      targetPercent: num(th.targetPercent, `${w}.thresholds.targetPercent`),
    },
    keepRecentTurns: int(v.keepRecentTurns, `${w}.keepRecentTurns`),
    systemHash: hex(v.systemHash, `${w}.systemHash`),
    instructions: arr(v.instructions, `${w}.instructions`).map((i, k) => {
      if (!isObj(i)) fail(`${w}.instructions[${k}]`, 'must be {source, hash}');
      return { source: str(i.source, `${w}.instructions[${k}].source`), hash: hex(i.hash, `${w}.instructions[${k}].hash`) };
    }),
    summarizer: oneOf(v.summarizer, ['extractive', 'custom'] as const, `${w}.summarizer`),
  };
}

/** Checks the shape of an encoded state without fetching blobs (cheap; used on every loaded line). */
export function checkEncodedShape(obj: unknown): EncodedState {
  if (!isObj(obj)) fail('', 'must be a JSON object');
  if (obj.format !== STATE_FORMAT) fail('format', `must be ${JSON.stringify(STATE_FORMAT)} (got ${describe(obj.format)})`);
  if (obj.version !== STATE_FORMAT_VERSION)
    fail('version', `${describe(obj.version)} is not supported (this build reads version ${STATE_FORMAT_VERSION})`);
  int(obj.completedTurns, 'completedTurns');
  arr(obj.entries, 'entries').forEach((e, i) => {
    if (!isObj(e) || !isObj(e.artifact)) fail(`entries[${i}]`, 'must be {key, artifact, …}');
  });
  for (const f of ['latest', 'versions'] as const) {
    arr(obj[f], f).forEach((p, i) => {
      if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string') fail(`${f}[${i}]`, 'must be a [id, value] pair');
    });
  }
  arr(obj.order, 'order').forEach((k, i) => str(k, `order[${i}]`));
  arr(obj.turns, 'turns');
  arr(obj.previousBlocks, 'previousBlocks');
  if (obj.engine !== undefined) decodeEngineMeta(obj.engine);
  return obj as unknown as EncodedState;
}

/** The engine options recorded with an encoded state, validated (undefined when none were recorded). */
export function decodeEngineMetaOf(obj: EncodedState): EngineMeta | undefined {
  return obj.engine === undefined ? undefined : decodeEngineMeta(obj.engine);
}

/**
 * Validates `obj` (an `encodeState` result, possibly read back from disk) and rebuilds the state.
 * `getBlob(name)` returns a blob's text or throws; every snapshot is checked against its sha256.
 * Throws `StateDecodeError` naming the first problem.
 */
export function decodeState(obj: unknown, getBlob: (hash: string) => string): ChatState {
  const enc = checkEncodedShape(obj);
  const completedTurns = enc.completedTurns;
  const entries = new Map<string, EntryState>();
  enc.entries.forEach((v, i) => {
    const e = decodeEntry(v, `entries[${i}]`, getBlob);
    if (entries.has(e.key)) fail(`entries[${i}]`, `duplicate key ${JSON.stringify(e.key)}`);
    if (e.firstTurn > completedTurns + 1)
      fail(`entries[${i}] (${e.key}).firstTurn`, `${e.firstTurn} is after the last completed turn ${completedTurns}`);
    entries.set(e.key, e);
  });
  const has = (k: string, where: string) => {
    if (!entries.has(k)) fail(where, `refers to unknown attachment ${JSON.stringify(k)}`);
  };
  for (const e of entries.values()) {
    if (e.inPlaceOf !== undefined) has(e.inPlaceOf, `entries (${e.key}).inPlaceOf`);
  }
  const latest = new Map<string, string>();
  enc.latest.forEach(([id, key], i) => {
    const k = str(key, `latest[${i}][1]`);
    has(k, `latest[${i}]`);
    if (entries.get(k)!.artifact.id !== id) fail(`latest[${i}]`, `${JSON.stringify(k)} is not a version of ${JSON.stringify(id)}`);
    if (latest.has(id)) fail(`latest[${i}]`, `duplicate id ${JSON.stringify(id)}`);
    latest.set(id, k);
  });
  const versions = new Map<string, number>();
  enc.versions.forEach(([id, n], i) => {
    if (versions.has(id)) fail(`versions[${i}]`, `duplicate id ${JSON.stringify(id)}`);
    versions.set(id, int(n, `versions[${i}][1]`, 1));
  });
  for (const e of entries.values()) {
    const max = versions.get(e.artifact.id);
    if (max === undefined || e.artifact.version > max)
      fail(`versions`, `${JSON.stringify(e.artifact.id)} has version ${e.artifact.version} above the recorded highest ${max ?? 'none'}`);
  }
  const order = enc.order.slice();
  const inOrder = new Set<string>();
  order.forEach((k, i) => {
    has(k, `order[${i}]`);
    if (inOrder.has(k)) fail(`order[${i}]`, `duplicate key ${JSON.stringify(k)}`);
    inOrder.add(k);
  });
  if (inOrder.size !== entries.size) fail('order', `lists ${inOrder.size} attachments but there are ${entries.size}`);
  let prevTurn = 0;
  const turns = enc.turns.map((t, i) => {
    const r = decodeTurn(t, `turns[${i}]`);
    if (r.turn <= prevTurn) fail(`turns[${i}].turn`, `${r.turn} does not follow turn ${prevTurn}`);
    prevTurn = r.turn;
    r.items.forEach((it, k) => has(it.key, `turns[${i}].items[${k}]`));
    r.steps?.forEach((st, k) =>
      st.results.forEach((res, j) => res.items.forEach((it, m) => has(it.key, `turns[${i}].steps[${k}].results[${j}].items[${m}]`))),
    );
    return r;
  });
  if (prevTurn > completedTurns) fail('completedTurns', `${completedTurns} is below the last recorded turn ${prevTurn}`);
  if (turns.length > 0 && prevTurn !== completedTurns)
    fail('completedTurns', `${completedTurns} does not match the last recorded turn ${prevTurn}`);
  let summary: HistorySummary | undefined;
  if (enc.summary !== undefined) {
    const s = enc.summary as unknown;
    if (!isObj(s)) fail('summary', 'must be {throughTurn, text}');
    summary = { throughTurn: int(s.throughTurn, 'summary.throughTurn', 1), text: str(s.text, 'summary.text') };
    if (summary.throughTurn > completedTurns)
      fail('summary.throughTurn', `${summary.throughTurn} is after the last completed turn ${completedTurns}`);
  }
  const previousBlocks = enc.previousBlocks.map((b, i) => {
    const s = str(b, `previousBlocks[${i}]`);
    if (!BLOCK.test(s)) fail(`previousBlocks[${i}]`, 'must be role:sha256');
    return s;
  });
  // Same shape as `cloneState` (summary present, possibly undefined).
  return { completedTurns, entries, latest, versions, order, turns, summary, previousBlocks };
}

// ------------------------------------------------------------------ editing

/**
 * `enc` without the entries in `drop` (an import that refuses some paths): turn items that named
 * them go too, `latest` falls back to the newest remaining version, and ids with no version left
 * are forgotten. The result passes `decodeState` when `enc` did.
 */
export function withoutEntries(enc: EncodedState, drop: ReadonlySet<string>): EncodedState {
  if (drop.size === 0) return enc;
  const entries = enc.entries
    .filter((e) => !drop.has(e.key))
    .map((e) => {
      if (e.inPlaceOf === undefined || !drop.has(e.inPlaceOf)) return e;
      const copy = { ...e };
      delete copy.inPlaceOf;
      return copy;
    });
  const newest = new Map<string, EncodedEntry>();
  for (const e of entries) {
    const cur = newest.get(e.artifact.id);
    if (!cur || e.artifact.version > cur.artifact.version) newest.set(e.artifact.id, e);
  }
  const latest: [string, string][] = [];
  for (const [id, key] of enc.latest) {
    if (!drop.has(key)) latest.push([id, key]);
    else if (newest.has(id)) latest.push([id, newest.get(id)!.key]);
  }
  const out: EncodedState = {
    ...enc,
    entries,
    latest,
    versions: enc.versions.filter(([id]) => newest.has(id)),
    order: enc.order.filter((k) => !drop.has(k)),
    turns: enc.turns.map((t) => {
      const kept: TurnRecord = { ...t, items: t.items.filter((i) => !drop.has(i.key)) };
      if (t.steps) {
        kept.steps = t.steps.map((st) => ({
          ...st,
          results: st.results.map((r) => {
            const items = r.items.filter((i) => !drop.has(i.key));
            return items.length === r.items.length
              ? r
              : { ...r, items, note: r.note ?? `[${r.tool}: not imported: what it read is outside this workspace]` };
          }),
        }));
      }
      return kept;
    }),
  };
  return out;
}
