import * as assert from 'node:assert/strict';
import type { MessageView } from '../../src/protocol/messages';
import { assistantMessage, bar, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

/** Ten turns: twenty messages, each reply with a code block, a layer bar and a citation-free text. */
function twentyMessages(): MessageView[] {
  const out: MessageView[] = [];
  for (let t = 1; t <= 10; t++) {
    out.push(userMessage(t, `Question ${t}`));
    out.push(assistantMessage(t, `Answer ${t}:\n\n\`\`\`ts\nconst x${t} = ${t};\n\`\`\``, { bar: bar() }));
  }
  return out;
}

interface Focused {
  inConversation: boolean;
  messageId: string | null;
  testid: string | null;
  tag: string;
}

interface El {
  tagName: string;
  closest(sel: string): El | null;
  getAttribute(name: string): string | null;
  blur(): void;
}

function focused(p: Panel): Promise<Focused> {
  return p.page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: El | null } }).document.activeElement;
    return {
      inConversation: !!el?.closest('[data-testid="strata-conversation"]'),
      messageId: el?.closest('article')?.getAttribute('data-message-id') ?? null,
      testid: el?.getAttribute('data-testid') ?? null,
      tag: el?.tagName ?? '',
    };
  });
}

describe('one tab stop for the conversation (real browser)', function () {
  this.timeout(60_000);
  const suite = panelSuite();

  it('twenty messages add one tab stop; arrows move between messages; Enter and Escape go in and out', async () => {
    const p = await suite.open({ height: 800 });
    await p.init(state({ messages: twentyMessages() }));
    // Walk the whole panel with Tab, from the top to the input.
    await p.page.evaluate(() => (globalThis as unknown as { document: { activeElement: El | null } }).document.activeElement?.blur());
    const stops: Focused[] = [];
    for (let i = 0; i < 80; i++) {
      await p.page.keyboard.press('Tab');
      const f = await focused(p);
      stops.push(f);
      if (f.testid === 'strata-input') break;
    }
    assert.equal(stops[stops.length - 1].testid, 'strata-input', 'Tab reaches the input');
    const inside = stops.filter((s) => s.inConversation && s.messageId !== null);
    assert.deepEqual(
      inside.map((s) => `${s.tag}:${s.messageId}`),
      ['ARTICLE:10:assistant'],
      'the conversation is one tab stop, on the newest message',
    );
    const tabStops = stops.length;

    // Back to it with Shift+Tab, then move with the arrows.
    const after = stops.length - stops.findIndex((s) => s.inConversation && s.messageId !== null) - 1;
    for (let i = 0; i < after; i++) await p.page.keyboard.press('Shift+Tab');
    assert.equal((await focused(p)).messageId, '10:assistant', 'Shift+Tab comes back to the same stop');
    await p.page.keyboard.press('ArrowUp');
    assert.equal((await focused(p)).messageId, '10:user');
    await p.page.keyboard.press('ArrowUp');
    await p.page.keyboard.press('ArrowUp');
    assert.equal((await focused(p)).messageId, '9:user');
    await p.page.keyboard.press('Home');
    assert.equal((await focused(p)).messageId, '1:user');
    await p.page.keyboard.press('ArrowDown');
    const at = await focused(p);
    assert.deepEqual([at.tag, at.messageId], ['ARTICLE', '1:assistant']);

    // Enter goes into the message's actions; Tab moves among them; Escape comes back out.
    await p.page.keyboard.press('Enter');
    const first = await focused(p);
    assert.equal(first.messageId, '1:assistant');
    assert.equal(first.testid, 'strata-code-wrap', 'the first action of the message');
    await p.page.keyboard.press('Tab');
    assert.equal((await focused(p)).testid, 'strata-code-copy');
    await p.page.keyboard.press('Escape');
    const back = await focused(p);
    assert.deepEqual([back.tag, back.messageId], ['ARTICLE', '1:assistant']);
    // Tab past the message's last action leaves the list.
    await p.page.keyboard.press('Enter');
    assert.equal((await focused(p)).testid, 'strata-code-wrap');
    for (let i = 0; i < 12; i++) {
      await p.page.keyboard.press('Tab');
      const f = await focused(p);
      if (f.messageId !== '1:assistant') {
        assert.equal(f.inConversation && f.messageId !== null, false, 'Tab past the last action leaves the messages');
        break;
      }
    }
    // The list remembers the message visited: Tab from elsewhere lands there now.
    await p.page.evaluate(() => (globalThis as unknown as { document: { activeElement: El | null } }).document.activeElement?.blur());
    for (let i = 0; i < 2 * tabStops + 4; i++) {
      await p.page.keyboard.press('Tab');
      const f = await focused(p);
      if (f.inConversation && f.messageId) {
        assert.deepEqual([f.tag, f.messageId], ['ARTICLE', '1:assistant']);
        return;
      }
    }
    assert.fail('Tab did not reach the conversation again');
  });
});
