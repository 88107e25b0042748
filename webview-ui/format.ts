/** Relative times for the chat list (numbers are written by src/common/numberFormat.ts). */

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
