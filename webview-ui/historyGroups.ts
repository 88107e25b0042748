/** A run of chats under one date heading in the history view. */
export interface DateGroup<T> {
  label: string;
  items: T[];
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_MS = 86_400_000;

/** Midnight (local time) of the day `t` falls in. */
function dayStart(t: number): number {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/**
 * The heading a chat updated at `iso` goes under: Today, Yesterday, Last 7 days, then its month
 * ("October 2026"). A chat not saved yet (no time) is today's.
 */
export function dateGroupLabel(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return 'Today';
  const today = dayStart(now);
  if (t >= today) return 'Today';
  if (t >= today - DAY_MS) return 'Yesterday';
  if (t >= today - 7 * DAY_MS) return 'Last 7 days';
  const d = new Date(t);
  return `${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

/** Groups items (most recent first, as the host lists them) under their date headings, in order. */
export function groupByDate<T>(items: readonly T[], updatedAt: (item: T) => string, now: number): DateGroup<T>[] {
  const groups: DateGroup<T>[] = [];
  const byLabel = new Map<string, DateGroup<T>>();
  for (const item of items) {
    const label = dateGroupLabel(updatedAt(item), now);
    let group = byLabel.get(label);
    if (!group) {
      group = { label, items: [] };
      byLabel.set(label, group);
      groups.push(group);
    }
    group.items.push(item);
  }
  return groups;
}
