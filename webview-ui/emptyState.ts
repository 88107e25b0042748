import type { AttachWhat } from '../src/protocol/messages';
import { ATTACH_SELECTION_KEYS } from './composer';
import { h, icon } from './dom';

export interface EmptyStateHost {
  attach(what: AttachWhat): void;
  selectModel(): void;
}

/** What a new chat shows: what Strata does and the two steps to a first answer. */
export class EmptyState {
  readonly el: HTMLElement;
  private readonly modelHint: HTMLElement;

  constructor(host: EmptyStateHost) {
    const attachLink = (what: AttachWhat, label: string, testid: string) => {
      const b = h('button', { type: 'button', class: 'link-btn', 'data-testid': testid }, label);
      b.addEventListener('click', () => host.attach(what));
      return b;
    };
    const keys = ATTACH_SELECTION_KEYS.split('+').flatMap((k, i) => (i === 0 ? [h('kbd', null, k)] : ['+', h('kbd', null, k)]));
    const selectModel = h('button', { type: 'button', class: 'link-btn', 'data-testid': 'strata-empty-select-model' }, 'Select a model');
    selectModel.addEventListener('click', () => host.selectModel());
    this.modelHint = h(
      'p',
      { class: 'empty-model' },
      icon('info'),
      h(
        'span',
        null,
        'No model is configured yet: Send then shows the exact request that would go out, and sends nothing. ',
        selectModel,
        '.',
      ),
    );
    this.el = h(
      'section',
      { class: 'empty', 'data-testid': 'strata-empty', 'aria-label': 'Getting started' },
      h('div', { class: 'empty-icon', 'aria-hidden': 'true' }, icon('comment-discussion')),
      h('h2', null, 'Ask about your code'),
      h('p', { class: 'empty-lead' }, 'Strata sends what you attach, nothing else, and shows what every request costs.'),
      h(
        'ol',
        { class: 'empty-steps' },
        h(
          'li',
          null,
          'Select code in an editor and press ',
          ...keys,
          ', or attach the ',
          attachLink('activeFile', 'active file', 'strata-empty-attach-file'),
          ', the ',
          attachLink('selection', 'selection', 'strata-empty-attach-selection'),
          ' or all ',
          attachLink('openEditors', 'open editors', 'strata-empty-attach-editors'),
          '.',
        ),
        h('li', null, 'Type a question below and press ', h('kbd', null, 'Enter'), '.'),
        h(
          'li',
          null,
          'The meter above the input shows how much of the context budget the next request uses; hover a reply’s bar to see where its tokens went.',
        ),
      ),
      this.modelHint,
    );
    this.modelHint.hidden = true;
  }

  setConfigured(configured: boolean): void {
    this.modelHint.hidden = configured;
  }
}
