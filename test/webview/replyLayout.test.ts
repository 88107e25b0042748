import * as assert from 'node:assert/strict';
import type { ToolStepView } from '../../src/protocol/messages';
import { assistantMessage, CHAT_ID, state, userMessage } from './fixtures';
import type { Panel } from './harness';
import { panelSuite } from './suite';

const step = (over: Partial<ToolStepView>): ToolStepView => ({
  id: 'call_1',
  step: 1,
  name: 'read_file',
  label: 'read_file src/a.ts',
  args: '{"path":"src/a.ts"}',
  status: 'done',
  summary: 'src/a.ts, 40 lines',
  resultTokens: 120,
  ...over,
});

const BEFORE = 'Let me look at `src/a.ts` first.';
const MIDDLE = '\n\nNow the tests.';
const AFTER = '\n\nIt adds two numbers:\n\n```ts\nadd(1, 2);\n```';

/** The reply's parts in document order: text blocks and tool-step groups (their step ids). */
interface Node {
  children: ArrayLike<Node>;
  classList: { contains(c: string): boolean };
  textContent: string | null;
  closest(sel: string): Node | null;
  querySelectorAll(sel: string): ArrayLike<{ getAttribute(name: string): string | null }>;
}

function parts(p: Panel, messageId: string): Promise<string[]> {
  return p.page.locator(`[data-message-id="${messageId}"]`).evaluate((article) => {
    const out: string[] = [];
    const walk = (el: Node) => {
      for (const child of Array.from(el.children)) {
        if (child.classList.contains('tool-steps'))
          out.push(
            `steps:${Array.from(child.querySelectorAll('[data-step-id]'))
              .map((s) => s.getAttribute('data-step-id'))
              .join(',')}`,
          );
        else if (child.classList.contains('msg-body')) walk(child);
        else if (child.closest('.msg-body')) out.push(`text:${(child.textContent ?? '').trim().split('\n')[0]}`);
      }
    };
    walk(article as unknown as Node);
    return out;
  });
}

describe('tool steps where they happened in the reply (real browser)', function () {
  this.timeout(60_000);
  const suite = panelSuite();

  it('streams steps between the texts before and after them, and a reload shows the same', async () => {
    const p = await suite.open();
    await p.init(state({ messages: [] }));
    await p.post({
      type: 'turnStarted',
      chatId: CHAT_ID,
      turnId: 't1',
      user: userMessage(1, 'How does add work?'),
      assistant: assistantMessage(1, '', { status: 'streaming', usage: undefined }),
    });
    let seq = 0;
    const chunk = (text: string) => p.post({ type: 'chunk', chatId: CHAT_ID, turnId: 't1', seq: seq++, text });
    await chunk(BEFORE);
    // The host does not place streaming steps: the panel puts them where the text has reached.
    await p.post({ type: 'toolStep', chatId: CHAT_ID, turnId: 't1', step: step({ status: 'running', summary: undefined }) });
    await p.post({ type: 'toolStep', chatId: CHAT_ID, turnId: 't1', step: step({}) });
    await chunk(MIDDLE);
    await p.post({
      type: 'toolStep',
      chatId: CHAT_ID,
      turnId: 't1',
      step: step({ id: 'call_2', step: 2, label: 'read_file test/a.test.ts' }),
    });
    await chunk(AFTER);
    await p.settle();
    const live = await parts(p, '1:assistant');
    assert.deepEqual(live, [
      `text:${BEFORE.replace(/`/g, '')}`,
      'steps:call_1',
      'text:Now the tests.',
      'steps:call_2',
      'text:It adds two numbers:',
      'text:tsApply…add(1, 2);',
    ]);

    const text = BEFORE + MIDDLE + AFTER;
    const final = assistantMessage(1, text, {
      toolSteps: [
        step({ textOffset: BEFORE.length }),
        step({ id: 'call_2', step: 2, label: 'read_file test/a.test.ts', textOffset: (BEFORE + MIDDLE).length }),
      ],
    });
    await p.post({ type: 'turnEnded', chatId: CHAT_ID, turnId: 't1', kept: true, assistant: final });
    await p.settle();
    assert.deepEqual(await parts(p, '1:assistant'), live, 'the final message looks as it streamed');
    // The code block after the steps still copies its own code.
    await p.clearPosted();
    await p.page.locator('[data-message-id="1:assistant"] [data-testid="strata-code-copy"]').click();
    const copy = await p.waitForRequest('copy');
    assert.equal(copy.request.text, 'add(1, 2);');
    // No path in a step's label became a citation link.
    assert.equal(await p.page.locator('.tool-steps [data-testid="strata-citation"]').count(), 0);

    await p.init(state({ messages: [userMessage(1, 'How does add work?'), final] }));
    assert.deepEqual(await parts(p, '1:assistant'), live, 'a reloaded chat looks as it streamed');
  });

  it('shows the steps of a chat saved without their places above the text, as before', async () => {
    const p = await suite.open();
    await p.init(state({ messages: [userMessage(1, 'q'), assistantMessage(1, 'It adds.', { toolSteps: [step({})] })] }));
    assert.deepEqual(await parts(p, '1:assistant'), ['steps:call_1', 'text:It adds.']);
    assert.equal(
      (await p.page.locator('[data-message-id="1:assistant"] [data-testid="strata-message-body"]').textContent())?.trim(),
      'It adds.',
    );
  });
});
