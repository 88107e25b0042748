import * as assert from 'node:assert/strict';
import { dateGroupLabel, groupByDate } from '../../../webview-ui/historyGroups';
import { wordCandidates } from '../../../webview-ui/wordCut';

describe('chat history: date groups', () => {
  // Wednesday 26 November 2026, 15:00 local time.
  const now = new Date(2026, 10, 26, 15, 0, 0).getTime();
  const at = (y: number, m: number, d: number, h = 12) => new Date(y, m, d, h).toISOString();

  it('puts a chat under Today, Yesterday, Last 7 days or its month', () => {
    assert.equal(dateGroupLabel(at(2026, 10, 26, 0), now), 'Today');
    assert.equal(dateGroupLabel(at(2026, 10, 25, 23), now), 'Yesterday');
    assert.equal(dateGroupLabel(at(2026, 10, 25, 0), now), 'Yesterday');
    assert.equal(dateGroupLabel(at(2026, 10, 24, 23), now), 'Last 7 days');
    assert.equal(dateGroupLabel(at(2026, 10, 19, 1), now), 'Last 7 days');
    assert.equal(dateGroupLabel(at(2026, 10, 18, 23), now), 'November 2026');
    assert.equal(dateGroupLabel(at(2025, 11, 31), now), 'December 2025');
    assert.equal(dateGroupLabel('', now), 'Today', 'a chat not saved yet is today’s');
  });

  it('keeps the host’s order (most recent first) within and across groups', () => {
    const chats = [at(2026, 10, 26), at(2026, 10, 26, 9), at(2026, 10, 25), at(2026, 9, 3), at(2026, 9, 1), at(2026, 7, 9)];
    assert.deepEqual(
      groupByDate(chats, (c) => c, now).map((g) => [g.label, g.items.length]),
      [
        ['Today', 2],
        ['Yesterday', 1],
        ['October 2026', 2],
        ['August 2026', 1],
      ],
    );
  });

  it('shortens a title after a word, never inside one', () => {
    assert.deepEqual(wordCandidates('Refactor the tokenizer cache'), [
      'Refactor the tokenizer cache',
      'Refactor the tokenizer…',
      'Refactor the…',
      'Refactor…',
    ]);
    assert.deepEqual(wordCandidates('Costs: 1,152 tokens'), ['Costs: 1,152 tokens', 'Costs: 1,152…', 'Costs…']);
  });
});
