/**
 * Checks one turn's metadata (`TurnMeta`) as read from outside the store's own writes: an imported
 * export. Every field is checked for its type, so what the panel renders from it (tool steps, the
 * layer bar, usage, the model label) never meets a value it cannot show.
 */
import { isObj } from '../../common/guards';
import { LAYER_IDS } from '../../engine/types';
import { isToolStep } from '../../protocol/messages';

const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isInt = (v: unknown, min = 0): boolean => Number.isSafeInteger(v) && (v as number) >= min;
const isStr = (v: unknown): boolean => typeof v === 'string';
const strList = (v: unknown): boolean => Array.isArray(v) && v.every(isStr);
const isRange = (v: unknown): boolean => isObj(v) && isInt(v.startLine, 1) && isInt(v.endLine, 1);
const layerMap = (v: unknown, value: (x: unknown) => boolean): boolean =>
  isObj(v) && Object.entries(v).every(([k, x]) => (LAYER_IDS as readonly string[]).includes(k) && value(x));
const isRef = (v: unknown): boolean =>
  isObj(v) && (v.kind === 'file' || v.kind === 'selection') && isStr(v.uri) && (v.range === undefined || isRange(v.range));

function isAttachmentMeta(v: unknown): boolean {
  return (
    isObj(v) &&
    isStr(v.key) &&
    isStr(v.id) &&
    isStr(v.kind) &&
    isInt(v.version, 1) &&
    isStr(v.contentHash) &&
    isStr(v.uri) &&
    isStr(v.mode) &&
    (v.range === undefined || isRange(v.range))
  );
}

function isPruneReport(v: unknown): boolean {
  return (
    isObj(v) &&
    isStr(v.layer) &&
    isStr(v.item) &&
    isNum(v.preTokens) &&
    isNum(v.postTokens) &&
    isStr(v.kept) &&
    isStr(v.lost) &&
    isStr(v.reason)
  );
}

function isRequestAttachment(v: unknown): boolean {
  if (!isObj(v)) return false;
  if (v.kind === 'file') return isStr(v.path);
  if (v.kind === 'selection') return isStr(v.path) && isInt(v.startLine, 1) && isInt(v.endLine, 1);
  return (
    v.kind === 'snapshot' &&
    isStr(v.uri) &&
    isStr(v.contentHash) &&
    (v.range === undefined || isRange(v.range)) &&
    (v.artifactKind === undefined || v.artifactKind === 'tool' || v.artifactKind === 'text' || v.artifactKind === 'diagnostics') &&
    (v.tool === undefined || isStr(v.tool))
  );
}

/** Each optional field: its check. */
const OPTIONAL: Record<string, (v: unknown) => boolean> = {
  at: isStr,
  summaryThrough: (v) => isInt(v),
  layerHashes: (v) => layerMap(v, isStr),
  prefixHash: isStr,
  prefixBreak: isStr,
  budget: isNum,
  predicted: (v) => isObj(v) && isNum(v.promptTokens) && isNum(v.cachedTokens),
  prunedReports: (v) => Array.isArray(v) && v.every(isPruneReport),
  rejections: (v) => Array.isArray(v) && v.every((r) => isObj(r) && isStr(r.attachment) && isStr(r.reason)),
  usage: isUsage,
  stepUsage: (v) => Array.isArray(v) && v.every(isUsage),
  layerTokens: (v) => layerMap(v, isNum),
  layerCached: (v) => layerMap(v, isNum),
  model: isStr,
  provider: isStr,
  stopped: (v) => v === true,
  request: (v) =>
    isObj(v) &&
    Array.isArray(v.attachments) &&
    v.attachments.every(isRequestAttachment) &&
    ['pin', 'unpin', 'detach'].every((k) => v[k] === undefined || (Array.isArray(v[k]) && (v[k] as unknown[]).every(isRef))) &&
    (v.targetPercentOverride === undefined || isNum(v.targetPercentOverride)),
  rebased: (v) => isObj(v) && isInt(v.builtAfterTurn),
  engine: isObj,
  toolSteps: (v) => Array.isArray(v) && v.every(isToolStep),
  serverCut: (v) => isObj(v) && isNum(v.sent) && isNum(v.reported),
};

function isUsage(v: unknown): boolean {
  return isObj(v) && isNum(v.input) && isNum(v.cacheRead) && isNum(v.cacheWrite) && isNum(v.output);
}

const WHAT: Record<string, string> = {
  toolSteps: 'a list of tool steps',
  attachments: 'a list of attachments',
  usage: 'token counts',
  stepUsage: 'a list of token counts',
  request: "the turn's request",
};

/** Why `v` is not the metadata of turn `turn`, or undefined when it is. */
export function turnMetaProblem(v: unknown, turn: number): string | undefined {
  const at = `turn ${turn}`;
  if (!isObj(v)) return `${at}: its metadata must be an object`;
  if (v.turn !== turn) return `${at}: its metadata names turn ${JSON.stringify(v.turn)}`;
  if (!Array.isArray(v.attachments) || !v.attachments.every(isAttachmentMeta)) return `${at}: attachments must be ${WHAT.attachments}`;
  for (const k of ['pinned', 'detached', 'pruned', 'compacted', 'missing'])
    if (!strList(v[k])) return `${at}: ${k} must be a list of attachment keys`;
  for (const [k, check] of Object.entries(OPTIONAL))
    if (v[k] !== undefined && !check(v[k])) return `${at}: ${k} must be ${WHAT[k] ?? 'well-formed'}`;
  return undefined;
}
