import type { MessageView, ToolStepView } from '../src/protocol/messages';
import { h, icon, iconButton } from './dom';
import { formatInt } from '../src/common/numberFormat';
import { layerBarElement, layerBarTooltip, usageSummary } from './layers';
import { renderMarkdown, type CodeBlock, type RenderedMarkdown } from './markdown';
import { hasInlineSteps, layoutReply } from './replySegments';
import type { Tooltips } from './tooltip';
import { messageLabel } from './messageLabel';

/** One message on screen. */
export interface MessageRecord {
  view: MessageView;
  el: HTMLElement;
  body: HTMLElement;
  /** Assistant: the error line, the footer with the layer bar and actions. */
  error?: HTMLElement;
  /** Assistant: what the model did not see (an attachment cut to fit the window, a server's own cut). */
  notes?: HTMLElement;
  foot?: HTMLElement;
  actions?: HTMLElement;
  /** Assistant: the code blocks of the rendered text, in document order (for Copy / Insert). */
  codes: CodeBlock[];
  /** Assistant: the body shows the raw text until its markdown is rendered (long chats, off screen). */
  pending?: boolean;
  /** Assistant: the tool steps shown above the body (those before any text); the others are in the body. */
  steps?: HTMLElement;
}

export function messageElementId(id: string): string {
  return `msg-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * `rendered`: the markdown rendered in a batch; `'defer'`: show the text as it is for now (the
 * conversation renders it when it comes near the viewport or when the panel is idle).
 */
export function createMessage(view: MessageView, tooltips: Tooltips, rendered?: RenderedMarkdown | 'defer'): MessageRecord {
  return view.role === 'user' ? createUser(view) : createAssistant(view, tooltips, rendered);
}

function baseAttrs(view: MessageView) {
  return {
    class: `msg msg-${view.role}`,
    id: messageElementId(view.id),
    'data-testid': 'strata-message',
    'data-role': view.role,
    'data-message-id': view.id,
    'data-turn': view.turn,
    'data-status': view.status,
    'aria-label': messageLabel(view.role, view.turn, view.text),
  };
}

function createUser(view: MessageView): MessageRecord {
  const body = h('div', { class: 'msg-body msg-text', 'data-testid': 'strata-message-body' }, view.text);
  const el = h('article', baseAttrs(view));
  if (view.attachments && view.attachments.length > 0) {
    el.append(
      h(
        'ul',
        { class: 'msg-attachments', 'aria-label': 'Attached' },
        ...view.attachments.map((label) =>
          h('li', { class: 'msg-attachment', title: label }, icon(/:L\d/.test(label) ? 'list-selection' : 'file'), h('span', null, label)),
        ),
      ),
    );
  }
  el.append(body);
  return { view, el, body, codes: [] };
}

function createAssistant(view: MessageView, tooltips: Tooltips, rendered?: RenderedMarkdown | 'defer'): MessageRecord {
  const body = h('div', { class: 'msg-body markdown', 'data-testid': 'strata-message-body', 'aria-live': 'polite' });
  const el = h('article', baseAttrs(view), body);
  const record: MessageRecord = { view, el, body, codes: [] };
  if (hasInlineSteps(view.toolSteps)) {
    // Cut where the steps happened, so not one batch render of the whole text.
    renderAssistantText(record, view.text);
    updateAssistantChrome(record, tooltips);
    return record;
  }
  renderToolSteps(record);
  if (rendered === 'defer' && view.text.length > 0) {
    body.textContent = view.text;
    body.classList.add('md-pending');
    record.pending = true;
    updateAssistantChrome(record, tooltips);
    return record;
  }
  const r = rendered === 'defer' ? undefined : (rendered ?? (view.text ? renderMarkdown(view.text) : undefined));
  if (r) {
    body.append(r.fragment);
    record.codes = r.codes;
  }
  updateAssistantChrome(record, tooltips);
  return record;
}

/** Replaces the body's children from the first top-level block that changed (streaming keeps the rest). */
export function morphBody(body: HTMLElement, fragment: DocumentFragment): void {
  const next = Array.from(fragment.childNodes);
  const old = Array.from(body.childNodes);
  let same = 0;
  while (same < next.length && same < old.length && old[same].isEqualNode(next[same])) same++;
  for (let i = old.length - 1; i >= same; i--) old[i].remove();
  if (same < next.length) body.append(...next.slice(same));
}

/** Puts markdown rendered later (see `createMessage`) into a deferred message. */
export function fillDeferred(record: MessageRecord, rendered: RenderedMarkdown): void {
  if (hasInlineSteps(record.view.toolSteps)) {
    renderAssistantText(record, record.view.text);
    return;
  }
  record.body.replaceChildren(rendered.fragment);
  record.body.classList.remove('md-pending');
  record.codes = rendered.codes;
  record.pending = false;
}

/**
 * Renders an assistant message's text (streaming or final) with its tool steps where they happened:
 * the text is cut at each step's offset and each piece rendered on its own, so a step never lands
 * inside a paragraph or a code block the model was writing.
 */
export function renderAssistantText(record: MessageRecord, text: string): void {
  record.pending = false;
  record.body.classList.remove('md-pending');
  const open = openStepIds(record);
  const layout = layoutReply(text, record.view.toolSteps);
  placeStepsAbove(record, layout.above, open);
  if (text.length === 0 && layout.segments.every((s) => s.steps.length === 0)) {
    record.codes = [];
    record.body.replaceChildren();
    return;
  }
  const fragment = document.createDocumentFragment();
  const codes: CodeBlock[] = [];
  const streaming = record.view.status === 'streaming';
  for (const segment of layout.segments) {
    if (segment.text.trim().length > 0) {
      const r = renderMarkdown(segment.text, { streaming });
      // Code blocks are numbered across the whole reply (Copy and Apply find them by number).
      if (codes.length > 0)
        r.fragment.querySelectorAll('pre[data-code]').forEach((pre) => {
          pre.setAttribute('data-code', String(codes.length + Number(pre.getAttribute('data-code'))));
        });
      codes.push(...r.codes);
      fragment.append(r.fragment);
    }
    if (segment.steps.length > 0) fragment.append(stepGroup(segment.steps, open, 'strata-tool-steps-inline'));
  }
  record.codes = codes;
  morphBody(record.body, fragment);
}

/** Status attributes, the "working" placeholder, the error line and the footer of an assistant message. */
export function updateAssistantChrome(record: MessageRecord, tooltips: Tooltips): void {
  const { view, el, body } = record;
  el.setAttribute('data-status', view.status);
  // Counted once the reply is complete (not again on every streamed piece).
  el.setAttribute(
    'aria-label',
    view.status === 'streaming' ? `Strata, turn ${view.turn}, replying` : messageLabel(view.role, view.turn, view.text),
  );
  const streaming = view.status === 'streaming';
  el.classList.toggle('streaming', streaming);
  body.setAttribute('aria-busy', streaming ? 'true' : 'false');

  record.error?.remove();
  record.error = undefined;
  if (view.status === 'error') {
    record.error = h(
      'div',
      { class: 'msg-error', role: 'alert', 'data-testid': 'strata-message-error' },
      icon('error'),
      h('span', null, view.error && view.error.length > 0 ? view.error : 'The request failed.'),
    );
    body.after(record.error);
  }
  record.notes?.remove();
  record.notes = undefined;
  if (view.notes && view.notes.length > 0) {
    record.notes = h(
      'div',
      { class: 'msg-notes', role: 'note', 'data-testid': 'strata-message-notes' },
      ...view.notes.map((n) => h('div', { class: 'msg-note', 'data-testid': 'strata-message-note' }, icon('info'), h('span', null, n))),
    );
    (record.error ?? body).after(record.notes);
  }

  const foot = h('div', { class: 'msg-foot' });
  if (streaming) {
    foot.append(h('span', { class: 'msg-working' }, icon('loading', 'codicon-modifier-spin'), h('span', null, 'Working…')));
  }
  if (view.status === 'stopped') {
    // Plain text, not a pill: it reports what happened and is nothing to press.
    foot.append(h('span', { class: 'msg-stopped', 'data-testid': 'strata-message-stopped' }, 'Stopped'));
  }
  if (view.bar) {
    const bar = layerBarElement(view.bar);
    tooltips.register(bar, () => layerBarTooltip(record.view));
    foot.append(bar);
  }
  // One line in sight ("9.6k in, 99% cached · $0.012, saved $0.012"); the layers, the reported usage,
  // the output tokens and the model are in its tooltip, on hover or focus.
  const summary = usageSummary(view);
  if (summary || view.cost) {
    const line = h('span', { class: 'msg-line', role: 'group', tabindex: 0, 'data-testid': 'strata-reply-line' });
    if (summary) line.append(h('span', { class: 'msg-usage' }, summary));
    if (summary && view.cost) line.append(h('span', { class: 'msg-sep', 'aria-hidden': 'true' }, ' · '));
    if (view.cost) line.append(h('span', { class: 'msg-cost', 'data-testid': 'strata-cost' }, costShown(view.cost)));
    if (view.cost && view.cost.usd === undefined)
      line.append(
        ' ',
        h(
          'button',
          {
            type: 'button',
            class: 'link-btn',
            'data-action': 'set-price',
            'data-testid': 'strata-set-price',
            title: 'Set a price for this model (strata.prices)',
          },
          'Set price…',
        ),
      );
    line.setAttribute(
      'aria-label',
      `${summary}${view.cost ? `${summary ? ', ' : ''}${view.cost.text}` : ''}${view.model ? `; ${view.model}` : ''}`,
    );
    tooltips.register(line, () => replyLineTooltip(record.view));
    foot.append(line);
  }
  const actions = h('span', { class: 'msg-actions' });
  if (!streaming && view.text.length > 0) {
    actions.append(iconButton({ icon: 'copy', label: 'Copy Reply', testid: 'strata-copy-reply', action: 'copy-reply' }));
  }
  foot.append(actions);
  record.actions = actions;
  if (record.foot) record.foot.replaceWith(foot);
  else el.append(foot);
  record.foot = foot;
}

/** The money half of a reply's line: its cost, or "no price known" (the tokens are the other half). */
function costShown(cost: NonNullable<MessageView['cost']>): string {
  return cost.usd === undefined ? 'no price known' : cost.text;
}

function costNote(cost: NonNullable<MessageView['cost']>): string {
  if (cost.usd === undefined) return `${cost.text}. Set a price with the strata.prices setting (Set price…).`;
  return `${cost.text}: what the request that produced this reply cost, from the usage the provider reported; saved: the same tokens billed without the cache, minus that.`;
}

/** The reply line's tooltip: the request's layers and usage (as the bar's), then the cost in full. */
function replyLineTooltip(view: MessageView): Node {
  const box = layerBarTooltip(view);
  if (view.cost) box.append(h('div', { class: 'tooltip-note', 'data-testid': 'strata-cost-note' }, costNote(view.cost)));
  return box;
}

/** Each tool's codicon, as the host's tool registry gives it in `init`. */
let toolIcons: Readonly<Record<string, string>> = {};

export function setToolIcons(icons: Readonly<Record<string, string>>): void {
  toolIcons = icons;
}

function stepIcon(step: ToolStepView): HTMLSpanElement {
  if (step.status === 'running') return icon('loading', 'codicon-modifier-spin');
  if (step.status === 'refused') return icon('circle-slash');
  if (step.status === 'error') return icon('error');
  return icon(Object.hasOwn(toolIcons, step.name) ? toolIcons[step.name] : 'tools');
}

/** One tool call: a `<details>` whose summary says what was called and what came back. */
function toolStepElement(step: ToolStepView, open: boolean): HTMLElement {
  const facts: (string | HTMLElement)[] = [];
  if (step.reused)
    facts.push(
      h(
        'span',
        {
          class: 'badge tool-step-reused',
          title: 'The result was already in the context: a reference to that block was sent, not the content again.',
        },
        'in context',
      ),
    );
  else if (step.resultTokens !== undefined && step.status !== 'running')
    facts.push(h('span', { class: 'tool-step-size', 'data-testid': 'strata-tool-step-size' }, `${formatInt(step.resultTokens)} tokens`));
  if (step.cachedTokens !== undefined && step.cachedTokens > 0) {
    facts.push(
      h(
        'span',
        {
          class: 'tool-step-cached',
          'data-testid': 'strata-tool-step-cached',
          title: step.cachedReported
            ? 'Cached tokens the provider reported for the request that carried this result.'
            : 'Cached tokens predicted for the request that carried this result.',
        },
        `${formatInt(step.cachedTokens)} cached${step.cachedReported ? '' : ' (predicted)'}`,
      ),
    );
  }
  const summary = h(
    'summary',
    { class: 'tool-step-head' },
    stepIcon(step),
    h('span', { class: 'tool-step-label', title: step.label }, step.label),
    ...facts,
  );
  const body = h(
    'div',
    { class: 'tool-step-body' },
    h(
      'div',
      { class: 'tool-step-row' },
      h('span', { class: 'tool-step-key' }, 'Arguments'),
      h('code', { class: 'tool-step-args' }, step.args),
    ),
    h(
      'div',
      { class: 'tool-step-row' },
      h('span', { class: 'tool-step-key' }, 'Result'),
      h('span', { 'data-testid': 'strata-tool-step-summary' }, step.status === 'running' ? 'running…' : (step.summary ?? '')),
    ),
  );
  if (step.key)
    body.append(h('div', { class: 'tool-step-row' }, h('span', { class: 'tool-step-key' }, 'Block'), h('code', null, step.key)));
  const el = h(
    'details',
    {
      class: `tool-step tool-step-${step.status}`,
      'data-testid': 'strata-tool-step',
      'data-tool': step.name,
      'data-status': step.status,
      'data-step-id': step.id,
      'data-reused': step.reused ? 'true' : 'false',
    },
    summary,
    body,
  );
  if (open) el.setAttribute('open', '');
  return el;
}

/** The ids of the steps the user opened (they stay open when the message is drawn again). */
function openStepIds(record: MessageRecord): Set<string> {
  const open = new Set<string>();
  record.el.querySelectorAll('details.tool-step[open]').forEach((d) => open.add(d.getAttribute('data-step-id') ?? ''));
  return open;
}

function stepGroup(steps: readonly ToolStepView[], open: ReadonlySet<string>, testid: string): HTMLElement {
  const label = steps.length === 1 ? '1 tool call' : `${steps.length} tool calls`;
  return h(
    'div',
    { class: 'tool-steps', 'data-testid': testid, role: 'group', 'aria-label': label },
    ...steps.map((s) => toolStepElement(s, open.has(s.id))),
  );
}

function placeStepsAbove(record: MessageRecord, steps: readonly ToolStepView[], open: ReadonlySet<string>): void {
  if (steps.length === 0) {
    record.steps?.remove();
    record.steps = undefined;
    return;
  }
  const list = stepGroup(steps, open, 'strata-tool-steps');
  if (record.steps) record.steps.replaceWith(list);
  else record.body.before(list);
  record.steps = list;
}

/** (Re)draws the tool steps shown above an assistant message's text; steps the user opened stay open. */
export function renderToolSteps(record: MessageRecord): void {
  placeStepsAbove(record, layoutReply(record.view.text, record.view.toolSteps).above, openStepIds(record));
}

/**
 * Adds or replaces (by id) one step of a streaming message and redraws it with `text`, the reply
 * so far. A step the host did not place goes where the text has reached (its first version's place).
 */
export function applyToolStep(record: MessageRecord, step: ToolStepView, text: string): void {
  const steps = [...(record.view.toolSteps ?? [])];
  const i = steps.findIndex((s) => s.id === step.id);
  const placed = step.textOffset !== undefined ? step : { ...step, textOffset: i >= 0 ? steps[i].textOffset : text.length };
  if (i >= 0) steps[i] = placed;
  else steps.push(placed);
  record.view = { ...record.view, toolSteps: steps };
  renderAssistantText(record, text);
}
