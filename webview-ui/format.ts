/** Number formatting for token counts and shares (fixed locale so tests and screenshots are stable). */

const grouped = new Intl.NumberFormat('en-US');

/** 12345 → "12,345". */
export function formatInt(n: number): string {
  return grouped.format(Math.round(n));
}

/** Compact token count: 950 → "950", 1234 → "1.2k", 12345 → "12.3k", 123456 → "123k", 1234567 → "1.23M". */
export function formatTokens(n: number): string {
  const v = Math.max(0, Math.round(n));
  if (v < 1000) return String(v);
  if (v < 100_000) return `${trim((v / 1000).toFixed(1))}k`;
  if (v < 1_000_000) return `${Math.round(v / 1000)}k`;
  return `${trim((v / 1_000_000).toFixed(2))}M`;
}

function trim(s: string): string {
  return s.replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1');
}

/** A share 0…1 (or part/whole) as a percentage with one decimal below 10%: "64%", "7.5%". */
export function formatPercent(part: number, whole = 1): string {
  if (!(whole > 0)) return '0%';
  const p = (part / whole) * 100;
  if (p > 0 && p < 10) return `${p.toFixed(1)}%`;
  return `${Math.round(p)}%`;
}

/** Relative time for the chat list ("just now", "5 min ago", "3 h ago", "2 days ago", else a date). */
export function formatWhen(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, (now - t) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86_400) {
    const d = Math.floor(s / 86_400);
    return d === 1 ? 'yesterday' : `${d} days ago`;
  }
  return new Date(t).toISOString().slice(0, 10);
}
