import type { ChatSummaryView } from '../../src/protocol/messages';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** Chats updated today, yesterday, three days ago and in two earlier months (times relative to now). */
export function historyChats(now = Date.now()): ChatSummaryView[] {
  const at = (ms: number) => new Date(now - ms).toISOString();
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const sinceMidnight = now - midnight.getTime();
  return [
    {
      id: 'chat-1',
      title: 'Refactor the tokenizer cache',
      turns: 3,
      updatedAt: at(Math.min(5 * 60_000, sinceMidnight / 2)),
      cost: '$0.04',
    },
    {
      id: 'chat-2',
      title: 'Why does the provider’s prompt cache miss on every second turn when tools run between the user message and the reply?',
      turns: 12,
      updatedAt: at(sinceMidnight + 2 * HOUR),
    },
    { id: 'chat-3', title: 'Webview CSP review', turns: 1, updatedAt: at(sinceMidnight + 3 * DAY) },
    { id: 'chat-4', title: 'Apply merges a declaration', turns: 7, updatedAt: '2026-09-14T10:00:00.000Z' },
    { id: 'chat-5', title: 'Export to Markdown', turns: 2, updatedAt: '2026-08-02T10:00:00.000Z' },
  ];
}
