import * as assert from 'node:assert/strict';
import { AttachmentManager } from '../../../src/engine/attachmentManager';
import { HistoryManager } from '../../../src/engine/historyManager';
import { emptyState } from '../../../src/engine/state';
import { ExtractiveSummarizer } from '../../../src/engine/summarizer';
import { sha256Hex } from '../../../src/common/hash';
import { charTokenizer } from '../../support/charTokenizer';

const tok = charTokenizer();

function manager() {
  const s = emptyState();
  const am = new AttachmentManager(s, { sha256Hex }, (e) => tok.count(e.artifact.content));
  return { s, am };
}

describe('AttachmentManager', () => {
  it('adds versions, supersedes the previous one and moves a pin to the new version', () => {
    const { s, am } = manager();
    const v1 = am.addVersion({ kind: 'file', uri: 'a.ts', content: 'one' }, 1);
    assert.strictEqual(v1.key, 'file:a.ts');
    assert.ok(am.pin(v1.key));
    const v2 = am.addVersion({ kind: 'file', uri: 'a.ts', content: 'two' }, 2);
    assert.strictEqual(v2.key, 'file:a.ts@v2');
    assert.deepStrictEqual([v1.superseded, v1.essential, v2.superseded, v2.essential], [true, false, false, true]);
    assert.deepStrictEqual(s.order, ['file:a.ts', 'file:a.ts@v2']);
    assert.strictEqual(am.latest('file:a.ts'), v2);
    assert.strictEqual(am.effectivePriority(v1), 10);
    assert.strictEqual(am.effectivePriority(v2), 0);
  });

  it('drops highest priority number first, ties oldest first, never pinned; reports what it cut', () => {
    const { am } = manager();
    const sel = am.addVersion({ kind: 'selection', uri: 'a.ts', range: { startLine: 1, endLine: 1 }, content: 's'.repeat(100) }, 1); // priority 3
    const f1 = am.addVersion({ kind: 'file', uri: 'b.ts', content: 'b'.repeat(100) }, 1); // 5, turn 1
    const f2 = am.addVersion({ kind: 'file', uri: 'c.ts', content: 'c'.repeat(100) }, 2); // 5, turn 2
    const old = am.addVersion({ kind: 'file', uri: 'd.ts', content: 'd'.repeat(100) }, 2);
    am.addVersion({ kind: 'file', uri: 'd.ts', content: 'D'.repeat(100) }, 3); // old → superseded (10)
    const pinned = am.addVersion({ kind: 'file', uri: 'e.ts', content: 'e'.repeat(100) }, 1);
    am.pin(pinned.key);
    assert.deepStrictEqual(
      am.dropOrder().map((e) => e.key),
      [old.key, f1.key, f2.key, 'file:d.ts@v2', sel.key],
    );
    assert.strictEqual(am.tokens(), 600);
    const r = am.optimizeForLimit(350, 3);
    assert.deepStrictEqual(
      r.dropped.map((d) => [d.item, d.reason, d.preTokens, d.layer]),
      [
        ['file:d.ts', 'superseded', 100, 'L2'],
        ['file:b.ts', 'budget', 100, 'L2'],
        ['file:c.ts', 'budget', 100, 'L2'],
      ],
    );
    assert.deepStrictEqual([r.fits, r.tokens], [true, 300]);
    assert.deepStrictEqual(r.kept, [sel.key, 'file:d.ts@v2', pinned.key]);
    // Pinned alone over the limit: it stays, and the result says it does not fit.
    const r2 = am.optimizeForLimit(50, 3);
    assert.deepStrictEqual([r2.fits, r2.tokens, r2.kept], [false, 100, [pinned.key]]);
    assert.match(r2.dropped.find((d) => d.item === sel.key)!.lost, /a snapshot that cannot be re-read/);
  });

  it('remove detaches every version of the id with a report; pin of a removed item fails', () => {
    const { am } = manager();
    am.addVersion({ kind: 'file', uri: 'a.ts', content: 'one' }, 1);
    am.addVersion({ kind: 'file', uri: 'a.ts', content: 'twoo' }, 2);
    const reports = am.remove('file:a.ts');
    assert.deepStrictEqual(
      reports.map((r) => [r.item, r.preTokens, r.reason]),
      [
        ['file:a.ts', 3, 'detached'],
        ['file:a.ts@v2', 4, 'detached'],
      ],
    );
    assert.strictEqual(am.pin('file:a.ts@v2'), false);
    assert.deepStrictEqual(am.present(), []);
  });
});

describe('HistoryManager', () => {
  function history(n: number, keep = 4) {
    const s = emptyState();
    const hm = new HistoryManager(s, tok, new ExtractiveSummarizer(), keep);
    for (let t = 1; t <= n; t++) hm.append({ turn: t, userText: `u${t}`, items: [], reply: `r${t}.` });
    return hm;
  }

  it('strips history into a summary and the recent turns, never summarizing the last turn', () => {
    const hm = history(6);
    assert.strictEqual(hm.tokenEstimate(), 6 * 2 + 6 * 3);
    assert.strictEqual(hm.lastSummarizable, 2);
    assert.ok(hm.summarizeThrough(2));
    assert.deepStrictEqual(
      hm.strip().verbatim.map((t) => t.turn),
      [3, 4, 5, 6],
    );
    assert.strictEqual(hm.summary!.text, '- Turn 1. User: u1 | Assistant: r1.\n- Turn 2. User: u2 | Assistant: r2.');
    assert.strictEqual(hm.tokenEstimate(), hm.summary!.text.length + 4 * 5);
    assert.ok(hm.summarizeThrough(99));
    assert.strictEqual(hm.summarizedThrough, 5, 'the last turn stays verbatim');
    assert.deepStrictEqual(
      hm.strip().verbatim.map((t) => t.turn),
      [6],
    );
    assert.strictEqual(hm.summarizeThrough(5), false);
  });

  it('a summary line clips the flattened start of each text at a sentence or a word (same as flattening the whole text)', () => {
    // The reading of the rule: flatten whitespace, trim, keep `max` characters ended at a sentence
    // (past half) or a word (past 60%), with " …". Long texts are flattened from a prefix: checked
    // against the whole-text reading on whitespace-heavy random texts.
    const reference = (text: string, max: number): string => {
      const flat = text.replace(/\s+/g, ' ').trim();
      if (flat.length <= max) return flat;
      const cut = flat.slice(0, max);
      const sentenceEnd = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('? '), cut.lastIndexOf('! '));
      if (sentenceEnd > max * 0.5) return cut.slice(0, sentenceEnd + 1) + ' …';
      const atWord = cut.replace(/\s+\S*$/, '');
      return (atWord.length > max * 0.6 ? atWord : cut) + ' …';
    };
    const pieces = ['a', 'bc', ' ', '   ', '\n', '\t', '. ', '? ', 'word', ' \n ', '          ', '\r\n'];
    let x = 11;
    const rnd = (n: number) => {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      return x % n;
    };
    const text = (n: number) => Array.from({ length: rnd(n) }, () => pieces[rnd(pieces.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const [user, reply] = [text(120), text(260)];
      const line = new ExtractiveSummarizer(20, 30).summarize([{ turn: 1, user, reply }]);
      assert.strictEqual(
        line,
        `- Turn 1. User: ${reference(user, 20)} | Assistant: ${reference(reply, 30)}`,
        JSON.stringify({ user, reply }),
      );
    }
  });

  it('uses a precomputed (LLM) summary only when it covers exactly the turns being summarized', () => {
    const hm = history(6);
    hm.summarizeThrough(2, { throughTurn: 3, text: 'LLM summary of 1-3' });
    assert.notStrictEqual(hm.summary!.text, 'LLM summary of 1-3');
    hm.summarizeThrough(3, { throughTurn: 3, text: 'LLM summary of 1-3' });
    assert.strictEqual(hm.summary!.text, 'LLM summary of 1-3');
  });
});
