/** Field checks the protocol's parsers share. */

/** A string of at most `max` characters (and, unless `allowEmpty`, at least one). */
export function isStr(v: unknown, max: number, allowEmpty = true): v is string {
  return typeof v === 'string' && v.length <= max && (allowEmpty || v.length > 0);
}

/** An integer within `min`…`max`. */
export function isInt(v: unknown, min = 0, max = Number.MAX_SAFE_INTEGER): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

/** The object has no field outside `keys`. */
export function hasOnlyKeys(v: Record<string, unknown>, keys: readonly string[]): boolean {
  for (const k of Object.keys(v)) if (!keys.includes(k)) return false;
  return true;
}
