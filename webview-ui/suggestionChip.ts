import type { SuggestionView } from '../src/protocol/mentions';
import { h, icon } from './dom';

/**
 * The active editor's file or selection, offered as a dashed chip at the end of the attached chips'
 * row: not attached, not sent, until the user includes it (a click, or Enter or Space once it has
 * the focus; Shift+Tab from the input reaches it). One the isolation refuses is shown greyed, with
 * the reason.
 */
export class SuggestionChip {
  readonly el: HTMLButtonElement;
  private readonly label: HTMLElement;
  private readonly glyph: HTMLElement;
  private current: SuggestionView | null = null;

  constructor(
    private readonly include: (suggestion: SuggestionView) => void,
    private readonly shown: (visible: boolean) => void,
  ) {
    this.glyph = icon('add', 'chip-icon');
    this.label = h('span', { class: 'chip-label' });
    this.el = h('button', { type: 'button', class: 'chip suggestion', 'data-testid': 'strata-suggestion' }, this.glyph, this.label);
    this.el.addEventListener('click', () => {
      if (this.current && !this.el.classList.contains('pending')) this.include(this.current);
    });
    this.el.hidden = true;
  }

  get suggestion(): SuggestionView | null {
    return this.current;
  }

  set(suggestion: SuggestionView | null): void {
    this.current = suggestion;
    this.el.classList.remove('pending');
    this.el.hidden = suggestion === null;
    this.shown(suggestion !== null);
    if (!suggestion) return;
    const available = suggestion.available;
    this.label.textContent = suggestion.label;
    this.glyph.className = `codicon codicon-${available ? 'add' : 'circle-slash'} chip-icon`;
    this.el.classList.toggle('unavailable', !available);
    this.el.setAttribute('aria-disabled', String(!available));
    this.el.setAttribute('data-available', String(available));
    const what = suggestion.ref.kind === 'range' ? 'selection' : 'file';
    // The name starts with what the chip shows, so speech input can name it by its visible text; the
    // dashed border and the + say "suggested" on screen, which keeps it short enough to share the row.
    const name = available
      ? `${suggestion.label} suggested — include in the next message (not sent unless included)`
      : `${suggestion.label} suggested — cannot be included: ${suggestion.reason ?? 'it is not in the workspace'}`;
    this.el.setAttribute('aria-label', name);
    this.el.title = available
      ? `Include ${suggestion.detail} in the next message (the active ${what}, not sent unless included).\nClick or press Enter to include it; Shift+Tab from the message box reaches it.`
      : `${suggestion.detail} cannot be included: ${suggestion.reason ?? 'it is not in the workspace'}`;
  }

  /** The user asked to include it: shown as pending until the host's chips arrive. */
  pending(): void {
    this.el.classList.add('pending');
  }

  settled(): void {
    this.el.classList.remove('pending');
  }

  focus(): void {
    if (!this.el.hidden) this.el.focus();
  }
}
