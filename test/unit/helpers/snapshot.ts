/**
 * Golden snapshots: which segment each request block is, a compact JSON format that diffs well,
 * and "the first differing path" for readable failures.
 */
import { createHash } from 'node:crypto';
import type { Envelope, Segment } from '../../../src/engine/types';
import { LAYER_IDS } from '../../../src/engine/types';

export function sha8(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

/**
 * Pairs every block of `env.messages` with its segment. Segments are grouped by layer in the
 * envelope but keep the request's order within each layer, so the blocks are a merge of the five
 * layer sequences; a backtracking merge (same text, same role) recovers it even when two layers hold
 * equal texts. Throws when no consistent pairing exists.
 */
export function alignSegments(env: Envelope): Segment[][] {
  const queues = LAYER_IDS.map((id) => env.layers.find((l) => l.id === id)?.segments ?? []);
  const flat = env.messages.flatMap((m, mi) => m.content.map((b) => ({ text: b.text, role: m.role, mi })));
  const heads = queues.map(() => 0);
  const pick: Segment[] = [];
  const go = (i: number): boolean => {
    if (i === flat.length) return heads.every((h, li) => h === queues[li].length);
    for (let li = 0; li < queues.length; li++) {
      const g = queues[li][heads[li]];
      if (!g || g.text !== flat[i].text || g.role !== flat[i].role) continue;
      heads[li]++;
      pick[i] = g;
      if (go(i + 1)) return true;
      heads[li]--;
    }
    return false;
  };
  if (!go(0)) throw new Error(`turn ${env.turn}: the request blocks are not the envelope's segments in layer order`);
  const out: Segment[][] = env.messages.map(() => []);
  flat.forEach((f, i) => out[f.mi].push(pick[i]));
  return out;
}

/**
 * JSON with 2-space indentation, except that objects of primitives and short arrays of primitives
 * stay on one line (one block, one cut report per line; long text as one line per item).
 */
export function stableStringify(value: unknown, indent = ''): string {
  const flat = (v: unknown) => v === null || typeof v !== 'object';
  if (flat(value)) return JSON.stringify(value);
  const inner = indent + '  ';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const line = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    if (value.every(flat) && line.length <= 120) return line;
    return `[\n${value.map((v) => inner + stableStringify(v, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  if (entries.every(([, v]) => flat(v))) return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${stableStringify(v, inner)}`).join(',\n')}\n${indent}}`;
}

/** The first path where `actual` and `expected` differ (`turns[3].messages[0].blocks[2].sha8`), with both values. */
export function firstDifference(
  actual: unknown,
  expected: unknown,
  path = '$',
  ignore: ReadonlySet<string> = new Set(),
): string | undefined {
  if (Object.is(actual, expected)) return undefined;
  const show = (v: unknown) => {
    const s = JSON.stringify(v);
    return s === undefined ? 'undefined' : s.length > 200 ? `${s.slice(0, 200)}…` : s;
  };
  const both = typeof actual === 'object' && actual !== null && typeof expected === 'object' && expected !== null;
  if (!both || Array.isArray(actual) !== Array.isArray(expected)) return `${path}: expected ${show(expected)}, got ${show(actual)}`;
  if (Array.isArray(actual) && Array.isArray(expected)) {
    for (let i = 0; i < Math.min(actual.length, expected.length); i++) {
      const d = firstDifference(actual[i], expected[i], `${path}[${i}]`, ignore);
      if (d) return d;
    }
    if (actual.length !== expected.length)
      return `${path}: expected ${expected.length} items, got ${actual.length} (first extra: ${show(actual.length > expected.length ? actual[expected.length] : expected[actual.length])})`;
    return undefined;
  }
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  for (const k of new Set([...Object.keys(e), ...Object.keys(a)])) {
    if (ignore.has(k)) continue;
    const d = firstDifference(a[k], e[k], /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`, ignore);
    if (d) return d;
  }
  return undefined;
}
