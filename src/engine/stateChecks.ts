import { isObj } from '../common/guards';
import { StateDecodeError } from './encodedState';

/** Validators for a decoded chat state: each returns the value or throws a StateDecodeError naming where. */

const HEX64 = /^[0-9a-f]{64}$/;

export function fail(where: string, what: string): never {
  throw new StateDecodeError(`chat state ${where}: ${what}`);
}

export { isObj };

export function str(v: unknown, where: string): string {
  if (typeof v !== 'string') fail(where, `must be a string (got ${describe(v)})`);
  return v;
}

export function int(v: unknown, where: string, min = 0): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) fail(where, `must be an integer ≥ ${min} (got ${describe(v)})`);
  return v;
}

export function bool(v: unknown, where: string): boolean {
  if (typeof v !== 'boolean') fail(where, `must be true or false (got ${describe(v)})`);
  return v;
}

export function hex(v: unknown, where: string): string {
  const s = str(v, where);
  if (!HEX64.test(s)) fail(where, 'must be 64 lowercase hex digits (a sha256)');
  return s;
}

export function arr(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) fail(where, `must be an array (got ${describe(v)})`);
  return v;
}

export function oneOf<T extends string>(v: unknown, allowed: readonly T[], where: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v))
    fail(where, `must be one of ${allowed.join(', ')} (got ${describe(v)})`);
  return v as T;
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v);
  return typeof v === 'object' ? 'an object' : String(v);
}
