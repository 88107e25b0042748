import type { SuggestionView } from '../src/protocol/mentions';
import { h, icon } from './dom';

/**
 * The active editor's file or selection, offered above the input as a dashed chip: not attached,
 * not sent, until the user includes it (a click, or Enter or Space once it has the focus; Shift+Tab
 * from the input reaches it). One the isolation refuses is shown greyed, with the reason.
 */
export class SuggestionChip {
  readonly el: HTMLElement;
  private readonly button: HTMLButtonElement;
  private readonly label: HTMLElement;
  private readonly glyph: HTMLElement;
  private current: SuggestionView | null = null;

  constructor(private readonly include: (suggestion: SuggestionView) => void) {
    this.glyph = icon('add', 'chip-icon');
    this.label = h('span', { class: 'chip-label' });
    this.button = h(
      'button',
      { type: 'button', class: 'chip suggestion', 'data-testid': 'strata-suggestion' },
      this.glyph,
      this.label,
      h('span', { class: 'suggestion-note', 'aria-hidden': 'true' }, 'suggested'),
    );
    this.button.addEventListener('click', () => {
      if (this.current && !this.button.classList.contains('pending')) this.include(this.current);
    });
    this.el = h('div', { class: 'suggestion-row' }, this.button);
    this.el.hidden = true;
  }

  get suggestion(): SuggestionView | null {
    return this.current;
  }

  set(suggestion: SuggestionView | null): void {
    this.current = suggestion;
    this.button.classList.remove('pending');
    this.el.hidden = suggestion === null;
    if (!suggestion) return;
    const available = suggestion.available;
    this.label.textContent = suggestion.label;
    this.glyph.className = `codicon codicon-${available ? 'add' : 'circle-slash'} chip-icon`;
    this.button.classList.toggle('unavailable', !available);
    this.button.setAttribute('aria-disabled', String(!available));
    this.button.setAttribute('data-available', String(available));
    const what = suggestion.ref.kind === 'range' ? 'selection' : 'file';
    const text = available
      ? `Include ${suggestion.detail} in the next message (the active ${what}, suggested: not sent unless included)`
      : `${suggestion.detail} cannot be included: ${suggestion.reason ?? 'it is not in the workspace'}`;
    this.button.setAttribute('aria-label', text);
    this.button.title = available ? `${text}.\nClick or press Enter to include it; Shift+Tab from the message box reaches it.` : text;
  }

  /** The user asked to include it: shown as pending until the host's chips arrive. */
  pending(): void {
    this.button.classList.add('pending');
  }

  settled(): void {
    this.button.classList.remove('pending');
  }

  focus(): void {
    if (!this.el.hidden) this.button.focus();
  }
}
