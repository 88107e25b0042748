/**
 * Chat state ⇄ JSON (DESIGN §10). Pure: no Node built-ins, no vscode.
 *
 * `encodeState` turns a `ChatState` into a JSON-safe object in which every artifact snapshot (and
 * every compacted preview body) is replaced by a content-addressed blob reference; `stateBlobs`
 * lists the blobs to store; `decodeState` validates an encoded object and rebuilds the state,
 * fetching snapshots through `getBlob`. A decoded state renders byte-identical requests: every
 * field the engine reads is kept, including Map insertion order (which decides the order in which
 * changed files become new versions) and the previous request's block hashes (cache prediction).
 *
 * `diffState` / `applyDelta` give the chat store a compact per-turn delta: artifacts whose state did
 * not change and turns already written are not repeated.
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
import type { ArtifactKind, ChangedFilesPolicy, Layout } from './types';
import type { EngineOptions } from './turnTypes';
import { DEFAULT_THRESHOLDS, type Thresholds } from './budget';
import { versionKey } from './artifacts';
import { sha256Hex } from '../common/hash';

export const STATE_FORMAT = 'strata-chat-state';
export const STATE_FORMAT_VERSION = 1;

export type BlobEncoding = 'json';

export interface EncodedArtifact {
  id: string;
  kind: ArtifactKind;
  source: { uri: string; range?: { startLine: number; endLine: number } };
  recoverable: boolean;
  /** sha256 hex of the content: the blob name unless `blob` says otherwise. */
  contentHash: string;
  version: number;
  priority: number;
  essential: boolean;
  blob?: string;
  blobEncoding?: BlobEncoding;
}

export interface EncodedCompacted {
  bodyHash: string;
  keptLines: number;
  totalLines: number;
  blob?: string;
  blobEncoding?: BlobEncoding;
}

export interface EncodedEntry {
  key: string;
  artifact: EncodedArtifact;
  firstTurn: number;
  presence: Presence;
  superseded: boolean;
  missing: boolean;
  essential: boolean;
  compacted?: EncodedCompacted;
  inPlaceOf?: string;
  requestedEndLine?: number;
  /** Read by a workspace tool (issue 11): the tool's name. */
  tool?: string;
}

/** The engine options that decide rendering, without the ports (DESIGN §10: "policy and model in force"). */
export interface EngineMeta {
  conversationId: string;
  layout: Layout;
  policy: ChangedFilesPolicy;
  encoding: string;
  limits: { contextWindow: number; maxOutputTokens: number };
  thresholds: Thresholds;
  keepRecentTurns: number;
  /** sha256 of the L1 product prompt. */
  systemHash: string;
  /** Instruction overlays in force: where each came from and the sha256 of its text. */
  instructions: { source: string; hash: string }[];
  /** `extractive` for the engine's deterministic summarizer, `custom` when the host passed one. */
  summarizer: 'extractive' | 'custom';
}

export interface EncodedState {
  format: typeof STATE_FORMAT;
  version: typeof STATE_FORMAT_VERSION;
  completedTurns: number;
  /** In the state's Map order. */
  entries: EncodedEntry[];
  /** [id, key of its newest version], in Map order. */
  latest: [string, string][];
  /** [id, highest version handed out], in Map order. */
  versions: [string, number][];
  order: string[];
  turns: TurnRecord[];
  summary?: HistorySummary;
  previousBlocks: string[];
  /** The engine options in force when the state was saved. */
  engine?: EngineMeta;
}

export class StateDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateDecodeError';
  }
}

// ------------------------------------------------------------------ engine options

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

const HEX64 = /^[0-9a-f]{64}$/;
const KINDS: readonly ArtifactKind[] = ['file', 'selection', 'diagnostics', 'folder', 'tool', 'text'];
const PRESENCES: readonly Presence[] = ['present', 'detached', 'pruned', 'replaced'];
const MODES: readonly TurnItemMode[] = ['full', 'reference', 'missing'];
const BLOCK = /^(system|user|assistant|tool):[0-9a-f]{64}$/;

function fail(where: string, what: string): never {
  throw new StateDecodeError(`chat state ${where}: ${what}`);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown, where: string): string {
  if (typeof v !== 'string') fail(where, `must be a string (got ${describe(v)})`);
  return v;
}

function int(v: unknown, where: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) fail(where, `must be an integer ≥ ${min} (got ${describe(v)})`);
  return v;
}

function bool(v: unknown, where: string): boolean {
  if (typeof v !== 'boolean') fail(where, `must be true or false (got ${describe(v)})`);
  return v;
}

function hex(v: unknown, where: string): string {
  const s = str(v, where);
  if (!HEX64.test(s)) fail(where, 'must be 64 lowercase hex digits (a sha256)');
  return s;
}

function arr(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) fail(where, `must be an array (got ${describe(v)})`);
  return v;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], where: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    fail(where, `must be one of ${allowed.join(', ')} (got ${describe(v)})`);
  return v as T;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : String(v);
}

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

// ------------------------------------------------------------------ deltas

/** Changes to a keyed list: items to set (new ones go last), and the full key order when that is not enough. */
export interface KeyedDelta<T> {
  set: T[];
  keys?: string[];
}

/** Changes to an array: keep the first `keep` elements, then append `add`. */
export interface ArrayDelta<T> {
  keep: number;
  add: T[];
}

/** The change from one encoded state to the next (fields absent when unchanged). */
export interface StateDelta {
  completedTurns: number;
  entries?: KeyedDelta<EncodedEntry>;
  latest?: KeyedDelta<[string, string]>;
  versions?: KeyedDelta<[string, number]>;
  order?: ArrayDelta<string>;
  turns?: ArrayDelta<TurnRecord>;
  /** null: the summary was removed. */
  summary?: HistorySummary | null;
  previousBlocks?: ArrayDelta<string>;
  engine?: EngineMeta | null;
}

/**
 * Equal as JSON: the same object, a pair of the same values, or the same text. A store reuses the
 * objects it saved (see `EncodeReuse`), so most elements compare by identity.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (
    Array.isArray(a) &&
    Array.isArray(b) &&
    a.length === b.length &&
    a.every((x, i) => x === b[i] && (x === null || typeof x !== 'object'))
  )
    return true;
  return JSON.stringify(a) === JSON.stringify(b);
}

function keyedDelta<T>(prev: readonly T[], next: readonly T[], keyOf: (t: T) => string): KeyedDelta<T> | undefined {
  // The usual save: the same keys in the same places (most elements the same objects), new keys after.
  if (next.length >= prev.length) {
    const set: T[] = [];
    let i = 0;
    for (; i < prev.length; i++) {
      const p = prev[i];
      const n = next[i];
      if (p === n) continue;
      if (keyOf(p) !== keyOf(n)) break;
      if (!sameJson(p, n)) set.push(n);
    }
    if (i === prev.length) {
      // Keys of a list are distinct: those after the shared ones are new.
      for (; i < next.length; i++) set.push(next[i]);
      return set.length === 0 ? undefined : { set };
    }
  }
  const before = new Map<string, T>();
  for (const p of prev) before.set(keyOf(p), p);
  const set: T[] = [];
  const simulated = prev.map(keyOf);
  const known = new Set(simulated);
  for (const n of next) {
    const k = keyOf(n);
    if (!sameJson(before.get(k), n)) set.push(n);
    if (!known.has(k)) {
      simulated.push(k);
      known.add(k);
    }
  }
  const nextKeys = next.map(keyOf);
  const orderOk = simulated.length === nextKeys.length && simulated.every((k, i) => k === nextKeys[i]);
  if (set.length === 0 && orderOk) return undefined;
  return orderOk ? { set } : { set, keys: nextKeys };
}

function applyKeyed<T>(prev: readonly T[], d: KeyedDelta<T> | undefined, keyOf: (t: T) => string, where: string): T[] {
  if (!d) return prev.slice();
  if (!isObj(d) || !Array.isArray(d.set)) fail(`delta.${where}`, 'must be {set, keys?}');
  const map = new Map<string, T>();
  for (const p of prev) map.set(keyOf(p), p);
  for (const s of d.set) map.set(keyOf(s), s);
  if (d.keys === undefined) return [...map.values()];
  if (!Array.isArray(d.keys)) fail(`delta.${where}.keys`, 'must be an array');
  return d.keys.map((k) => {
    const v = map.get(k);
    if (v === undefined) fail(`delta.${where}.keys`, `names unknown key ${JSON.stringify(k)}`);
    return v;
  });
}

function arrayDelta<T>(prev: readonly T[], next: readonly T[]): ArrayDelta<T> | undefined {
  let keep = 0;
  const n = Math.min(prev.length, next.length);
  while (keep < n && (prev[keep] === next[keep] || JSON.stringify(prev[keep]) === JSON.stringify(next[keep]))) keep++;
  if (keep === prev.length && keep === next.length) return undefined;
  return { keep, add: next.slice(keep) };
}

function applyArray<T>(prev: readonly T[], d: ArrayDelta<T> | undefined, where: string): T[] {
  if (!d) return prev.slice();
  if (!isObj(d) || !Array.isArray(d.add) || typeof d.keep !== 'number' || !Number.isInteger(d.keep) || d.keep < 0 || d.keep > prev.length) {
    fail(`delta.${where}`, `must be {keep ≤ ${prev.length}, add}`);
  }
  return [...prev.slice(0, d.keep), ...d.add];
}

const entryKey = (e: EncodedEntry) => (isObj(e) ? String(e.key) : '');
const pairKey = (p: [string, unknown]) => (Array.isArray(p) ? String(p[0]) : '');

export function emptyEncoded(): EncodedState {
  return {
    format: STATE_FORMAT,
    version: STATE_FORMAT_VERSION,
    completedTurns: 0,
    entries: [],
    latest: [],
    versions: [],
    order: [],
    turns: [],
    previousBlocks: [],
  };
}

/** The delta that turns `prev` (undefined: an empty chat) into `next`. */
export function diffState(prev: EncodedState | undefined, next: EncodedState): StateDelta {
  const p = prev ?? emptyEncoded();
  const d: StateDelta = { completedTurns: next.completedTurns };
  const entries = keyedDelta(p.entries, next.entries, entryKey);
  if (entries) d.entries = entries;
  const latest = keyedDelta(p.latest, next.latest, pairKey);
  if (latest) d.latest = latest;
  const versions = keyedDelta(p.versions, next.versions, pairKey);
  if (versions) d.versions = versions;
  const order = arrayDelta(p.order, next.order);
  if (order) d.order = order;
  const turns = arrayDelta(p.turns, next.turns);
  if (turns) d.turns = turns;
  if (JSON.stringify(p.summary) !== JSON.stringify(next.summary)) d.summary = next.summary ?? null;
  const blocks = arrayDelta(p.previousBlocks, next.previousBlocks);
  if (blocks) d.previousBlocks = blocks;
  if (canonicalJson(p.engine) !== canonicalJson(next.engine)) d.engine = next.engine ?? null;
  return d;
}

/** Applies a delta (validated for shape; the result is checked fully by `decodeState`). */
export function applyDelta(prev: EncodedState | undefined, d: StateDelta): EncodedState {
  if (!isObj(d)) fail('delta', 'must be an object');
  const p = prev ?? emptyEncoded();
  const out: EncodedState = {
    format: STATE_FORMAT,
    version: STATE_FORMAT_VERSION,
    completedTurns: int(d.completedTurns, 'delta.completedTurns'),
    entries: applyKeyed(p.entries, d.entries, entryKey, 'entries'),
    latest: applyKeyed(p.latest, d.latest, pairKey, 'latest'),
    versions: applyKeyed(p.versions, d.versions, pairKey, 'versions'),
    order: applyArray(p.order, d.order, 'order'),
    turns: applyArray(p.turns, d.turns, 'turns'),
    previousBlocks: applyArray(p.previousBlocks, d.previousBlocks, 'previousBlocks'),
  };
  const summary = d.summary === undefined ? p.summary : (d.summary ?? undefined);
  if (summary !== undefined) out.summary = summary;
  const engine = d.engine === undefined ? p.engine : (d.engine ?? undefined);
  if (engine !== undefined) out.engine = engine;
  return out;
}

/** Entry keys a delta sets (their blobs must be stored before the delta is). */
export function deltaEntryKeys(d: StateDelta): string[] {
  return d.entries ? d.entries.set.map(entryKey) : [];
}

// ------------------------------------------------------------------ digests

/** JSON with object keys sorted: the same value always gives the same text. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

/** Elements per link of a list digest (`listDigest`). */
export const DIGEST_LINK = 16;

/**
 * The digest of a list (each array of the state): its elements taken `DIGEST_LINK` at a time, each
 * link's sha256 (hex) over its elements' canonical JSON joined by commas, then the sha256 of the links'
 * hashes joined. A store saving turn after turn keeps each link's hash while its elements are the same
 * objects, so a save hashes the links that changed (the last one, where a turn was added or an entry
 * replaced) and the list of link hashes, not the whole chat.
 */
export function listDigest(items: readonly unknown[]): string {
  let links = '';
  for (let i = 0; i < items.length; i += DIGEST_LINK)
    links += sha256Hex(
      items
        .slice(i, i + DIGEST_LINK)
        .map((x) => canonicalJson(x))
        .join(','),
    );
  return sha256Hex(links);
}

/** The arrays of an encoded state (a version-2 state digest takes each by its `listDigest`). */
export const LISTED_ARRAYS = ['entries', 'latest', 'order', 'previousBlocks', 'turns', 'versions'] as const;

/**
 * The state digest: equal digests ⇔ equal states. Version 1 (chat lines of format 1): sha256 of the
 * canonical JSON of the whole state, which made every save hash the whole chat. Version 2: the same
 * with each array replaced by its `listDigest` (a hex string).
 */
export function stateDigest(enc: EncodedState, version: 1 | 2 = 2): string {
  if (version === 1) return sha256Hex(canonicalJson(enc));
  const o: Record<string, unknown> = { ...enc };
  for (const k of LISTED_ARRAYS) o[k] = listDigest(enc[k]);
  return sha256Hex(canonicalJson(o));
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
