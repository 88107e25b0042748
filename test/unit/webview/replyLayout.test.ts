import * as assert from 'node:assert/strict';
import type { ToolStepView } from '../../../src/protocol/messages';
import { displayReply, stepTextOffsets } from '../../../src/services/session/messageViews';
import { hasInlineSteps, layoutReply } from '../../../webview-ui/replySegments';

const step = (id: string, stepNo: number, textOffset?: number): ToolStepView => ({
  id,
  step: stepNo,
  name: 'read_file',
  label: `read_file ${id}`,
  args: '{}',
  status: 'done',
  ...(textOffset === undefined ? {} : { textOffset }),
});

describe('tool steps in the reply text', () => {
  it('places each model step after its own text and the text before it', () => {
    const record = { steps: [{ text: 'Let me look.' }, { text: '' }, { text: 'Now the tests.' }], reply: 'Done.' };
    const text = displayReply(record);
    const offsets = stepTextOffsets(record);
    assert.deepEqual(offsets, [12, 12, 28]);
    assert.equal(text.slice(0, offsets[0]), 'Let me look.');
    assert.equal(text.slice(0, offsets[2]), 'Let me look.\n\nNow the tests.');
    assert.deepEqual(stepTextOffsets({ steps: [{ text: '' }] }), [0], 'a step before any text is at the start');
    assert.deepEqual(stepTextOffsets({}), []);
  });

  it('cuts the text at the offsets, groups steps at the same place, and keeps unplaced steps above', () => {
    const text = 'Let me look.\n\nNow the tests.\n\nDone.';
    const layout = layoutReply(text, [step('a', 1, 12), step('b', 1, 12), step('c', 2, 28)]);
    assert.deepEqual(layout.above, []);
    assert.deepEqual(
      layout.segments.map((s) => [s.text, s.steps.map((x) => x.id)]),
      [
        ['Let me look.', ['a', 'b']],
        ['\n\nNow the tests.', ['c']],
        ['\n\nDone.', []],
      ],
    );
    assert.equal(layout.segments.map((s) => s.text).join(''), text, 'no text lost or repeated');
    assert.equal(hasInlineSteps([step('a', 1, 12)]), true);
  });

  it('shows the steps of a chat saved without offsets above the text, as before', () => {
    const layout = layoutReply('It adds.', [step('a', 1), step('b', 2, 0)]);
    assert.deepEqual(
      layout.above.map((s) => s.id),
      ['a', 'b'],
    );
    assert.deepEqual(layout.segments, [{ text: 'It adds.', steps: [] }]);
    assert.equal(hasInlineSteps([step('a', 1), step('b', 2, 0)]), false);
  });

  it('clamps offsets past the text (a step running after what streamed so far) to its end', () => {
    const layout = layoutReply('Reading.', [step('a', 1, 50)]);
    assert.deepEqual(
      layout.segments.map((s) => [s.text, s.steps.length]),
      [['Reading.', 1]],
    );
  });
});
