import { h, icon } from './dom';

/** Older messages are requested when the top is closer than this (px). */
const LOAD_OLDER_MARGIN = 400;

export interface OlderMessagesSource {
  /** Ask the host for messages before `beforeTurn`; resolves false when the request failed. */
  loadOlder(beforeTurn: number): Promise<boolean>;
  /** The turn of the first message shown, if any. */
  firstTurn(): number | undefined;
  /** The chat shown now (a failure reported after a chat switch is not this chat's). */
  chatId(): string;
}

/**
 * Lazy loading of older messages: requests them when the top of the viewport `el` comes near
 * (or the view does not fill yet), and the row above the messages that shows the loading state
 * or offers to load (again).
 */
export class OlderMessages {
  readonly row: HTMLElement;
  private hasOlder = false;
  private loading = false;
  private failed = false;

  constructor(
    private readonly el: HTMLElement,
    private readonly source: OlderMessagesSource,
  ) {
    this.row = h('div', { class: 'older-row' });
  }

  /** Whether the host has messages before the ones shown. */
  get available(): boolean {
    return this.hasOlder;
  }

  /** A new chat is shown; call `updateRow` once its messages are in place. */
  reset(hasOlder: boolean): void {
    this.hasOlder = hasOlder;
    this.loading = false;
    this.failed = false;
  }

  /** Older messages arrived; call `updateRow` once they are in place. */
  loaded(hasOlder: boolean): void {
    this.loading = false;
    this.hasOlder = hasOlder;
  }

  maybeLoad(): void {
    if (!this.hasOlder || this.loading || this.failed) return;
    if (this.el.scrollTop > LOAD_OLDER_MARGIN && this.el.scrollHeight > this.el.clientHeight) return;
    void this.load();
  }

  /** Loads every older message (Find searches the whole chat); stops at a failure. */
  async loadAll(): Promise<void> {
    for (let guard = 0; this.hasOlder && guard < 10_000; guard++) {
      const beforeTurn = this.source.firstTurn();
      if (beforeTurn === undefined || beforeTurn < 1) return;
      this.loading = true;
      this.updateRow();
      const ok = await this.source.loadOlder(beforeTurn);
      if (!ok) {
        this.loading = false;
        this.failed = true;
        this.updateRow();
        return;
      }
      // The answer's messages came before the answer; a turn that did not move means nothing came.
      if (this.source.firstTurn() === beforeTurn) return;
    }
  }

  /** The user asked to load (again). */
  retry(): void {
    this.failed = false;
    void this.load();
  }

  private async load(): Promise<void> {
    const beforeTurn = this.source.firstTurn();
    if (beforeTurn === undefined || beforeTurn < 1) {
      this.hasOlder = false;
      this.updateRow();
      return;
    }
    this.loading = true;
    this.failed = false;
    this.updateRow();
    const chatId = this.source.chatId();
    const ok = await this.source.loadOlder(beforeTurn);
    if (!ok && chatId === this.source.chatId() && this.loading) {
      this.loading = false;
      this.failed = true;
      this.updateRow();
    }
  }

  updateRow(): void {
    const row = this.row;
    row.hidden = !this.hasOlder;
    if (!this.hasOlder) {
      row.replaceChildren();
      return;
    }
    if (this.loading) {
      row.replaceChildren(
        h(
          'span',
          { class: 'older-loading', role: 'status', 'data-testid': 'strata-loading-older' },
          icon('loading', 'codicon-modifier-spin'),
          'Loading earlier messages…',
        ),
      );
      return;
    }
    row.replaceChildren(
      h(
        'button',
        { type: 'button', class: 'link-btn', 'data-testid': 'strata-load-older', 'data-action': 'load-older' },
        this.failed ? 'Could not load earlier messages. Retry' : 'Load earlier messages',
      ),
    );
  }
}
