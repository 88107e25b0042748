/** Small type guards shared by the layers (plain TypeScript: no Node, no editor). */

/** A plain object (not null, not an array): a parsed JSON value worth reading fields from. */
export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
