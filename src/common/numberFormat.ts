/**
 * The one way Strata writes numbers a user reads: token counts, shares, money and the budget's
 * wording, used alike by the panel, the Context Layers tree and the status bar, so the same request
 * shows the same figure everywhere. Fixed locale (en-US) so tests and screenshots are stable. Pure.
 */

/** 12345 → "12,345". Grouped by hand: many times faster than ICU, and a long chat's tree formats thousands. */
export function formatInt(n: number): string {
  const v = Math.round(n);
  if (!Number.isSafeInteger(v)) return String(v);
  const digits = String(Math.abs(v));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return v < 0 ? `-${out}` : out;
}

function trimZeros(s: string): string {
  return s.replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
}

/** Compact token count: 950 → "950", 1234 → "1.2k", 9612 → "9.6k", 123456 → "123k", 1234567 → "1.23M". */
export function formatTokens(n: number): string {
  const v = Math.max(0, Math.round(n));
  if (v < 1000) return String(v);
  if (v < 100_000) return `${trimZeros((v / 1000).toFixed(1))}k`;
  if (v < 1_000_000) return `${Math.round(v / 1000)}k`;
  return `${trimZeros((v / 1_000_000).toFixed(2))}M`;
}

/**
 * A share (part of whole, or 0…1) in percent: one decimal below 10% ("5.4%"), whole numbers above
 * ("64%"), "<0.1%" for a trace, and never "100%" for a share that is not whole (99.7% reads "99%").
 */
export function formatPercent(part: number, whole = 1): string {
  if (!(whole > 0) || !(part > 0)) return '0%';
  const p = (part / whole) * 100;
  if (p < 0.1) return '<0.1%';
  if (p < 10) return `${trimZeros(p.toFixed(1))}%`;
  if (p < 100 && Math.round(p) === 100) return '99%';
  return `${Math.round(p)}%`;
}

/** US dollars: cents from a dollar, three decimals from a cent ("$0.012"), four below, "<$0.0001" for dust. */
export function formatUsd(usd: number): string {
  const v = Math.abs(usd);
  const sign = usd < 0 ? '−' : '';
  if (v === 0) return '$0.00';
  if (v >= 1) return `${sign}$${v.toFixed(2)}`;
  // 0.9996 is "$1.00", not "$1.000".
  if (v >= 0.01) return Number(v.toFixed(3)) >= 1 ? `${sign}$${v.toFixed(2)}` : `${sign}$${v.toFixed(3)}`;
  if (v >= 0.0001) return `${sign}$${v.toFixed(4)}`;
  return `${sign}<$0.0001`;
}

/** Bytes as a size a user compares: "950 bytes", "12 KB", "20 MB" (1 MB = 1,048,576 bytes, as file managers count). */
export function formatBytes(n: number): string {
  const v = Math.max(0, Math.round(n));
  if (v < 1024) return `${v} ${v === 1 ? 'byte' : 'bytes'}`;
  if (v < 1024 * 1024) return `${trimZeros((v / 1024).toFixed(v < 10 * 1024 ? 1 : 0))} KB`;
  return `${trimZeros((v / (1024 * 1024)).toFixed(v < 10 * 1024 * 1024 ? 1 : 0))} MB`;
}

/** The meter's words: "9.6k of 111k budget (128k window)" — the denominator is the budget, and says so. */
export function budgetText(used: number, budget: number, contextWindow: number): string {
  return `${formatTokens(used)} of ${formatTokens(budget)} budget (${formatTokens(contextWindow)} window)`;
}

/** The status bar's short form of the same figures: "9.6k/111k". */
export function budgetShortText(used: number, budget: number): string {
  return `${formatTokens(used)}/${formatTokens(budget)}`;
}

/** What a request cost: "$0.012, saved $0.012" (or what cache writes added); the money half of a reply's line. */
export function costText(usd: number, savedUsd: number): string {
  // Below a hundredth of a cent either way the cache made no difference worth a word.
  if (Math.abs(savedUsd) < 0.00005) return formatUsd(usd);
  return savedUsd > 0 ? `${formatUsd(usd)}, saved ${formatUsd(savedUsd)}` : `${formatUsd(usd)}, cache writes added ${formatUsd(-savedUsd)}`;
}

/** The tokens half of a reply's line: "9.6k in, 99% cached". */
export function promptText(input: number, cached?: number): string {
  return cached !== undefined && input > 0
    ? `${formatTokens(input)} in, ${formatPercent(cached, input)} cached`
    : `${formatTokens(input)} in`;
}

/** The chat's total: "Chat $0.052 · saved $0.024" ("+" after the total when some turns have no price). */
export function chatCostText(usd: number, savedUsd: number, unpriced = false): string {
  const total = `Chat ${formatUsd(usd)}${unpriced ? '+' : ''}`;
  if (Math.abs(savedUsd) < 0.00005) return total;
  return savedUsd > 0 ? `${total} · saved ${formatUsd(savedUsd)}` : `${total} · cache writes added ${formatUsd(-savedUsd)}`;
}

/** "3 files", "1 file". */
export function countText(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

/** The layers of a request, in the words the panel and Context Layers use (the L-number is secondary). */
export const LAYER_TITLES = { L1: 'System', L2: 'Attachments', L3: 'This turn', L4: 'History', L5: 'Your message' } as const;

/** "Attachments (L2)". */
export function layerTitle(id: keyof typeof LAYER_TITLES): string {
  return `${LAYER_TITLES[id]} (${id})`;
}
