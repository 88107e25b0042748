import { MAX_TITLE_CHARS, type ChatSummaryView } from '../src/protocol/messages';
import { MAX_SEARCH_CHARS, type ChatSearchResult } from '../src/protocol/requests';
import { h, iconButton } from './dom';
import { formatWhen } from './format';
import { groupByDate } from './historyGroups';

export interface HistoryHost {
  /** The host's search over titles and texts; undefined when the request failed. */
  search(query: string): Promise<ChatSearchResult | undefined>;
  /** `query`: the search that found the chat (it opens at the match). */
  open(chatId: string, query?: string): void;
  rename(chatId: string, title: string): void;
  /** The host asks the user to confirm, and decides. */
  delete(chatId: string): void;
  /** The view was shown or hidden (the panel shows the conversation in its place when hidden). */
  shownChanged(shown: boolean): void;
}

/** Typing pauses this long before the host is asked (each key would otherwise start a search). */
const SEARCH_DELAY_MS = 150;

/**
 * The chat history, in the panel in place of the conversation: every chat grouped by date (Today,
 * Yesterday, Last 7 days, then by month), full titles, a search the host answers over titles and
 * the chats' text (titles filter at once while the host looks), rename in place and delete (the host
 * confirms). Keyboard: the search field first; Down from it to the chats, Up and Down between them,
 * Enter opens, F2 renames, Delete deletes, Escape goes back to the conversation.
 */
export class HistoryView {
  readonly el: HTMLElement;
  private readonly field: HTMLInputElement;
  private readonly status: HTMLElement;
  private readonly list: HTMLElement;
  private chats: ChatSummaryView[] = [];
  private chatId = '';
  /** The host's answer for the query shown (undefined: none yet, titles filtered locally meanwhile). */
  private result: { query: string; value: ChatSearchResult } | undefined;
  private searching = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renaming: string | undefined;

  constructor(private readonly host: HistoryHost) {
    this.field = h('input', {
      type: 'search',
      class: 'history-search',
      placeholder: 'Search chats by title or text',
      'aria-label': 'Search chats by title or text',
      maxlength: MAX_SEARCH_CHARS,
      'data-testid': 'strata-history-search',
    });
    this.status = h('div', { class: 'history-status', role: 'status', 'data-testid': 'strata-history-status' });
    this.list = h('div', { class: 'history-list' });
    const back = iconButton({ icon: 'arrow-left', label: 'Back to the Chat', testid: 'strata-history-back', action: 'back' });
    this.el = h(
      'section',
      { class: 'history', 'data-testid': 'strata-history', 'aria-label': 'Chat history' },
      h('div', { class: 'history-head' }, back, h('h2', { class: 'history-title' }, 'History')),
      this.field,
      this.status,
      this.list,
    );
    this.el.hidden = true;
    this.field.addEventListener('input', () => this.onInput());
    this.el.addEventListener('click', (e) => this.onClick(e));
    this.el.addEventListener('keydown', (e) => this.onKeyDown(e));
  }

  get shown(): boolean {
    return !this.el.hidden;
  }

  show(): void {
    if (!this.shown) {
      this.el.hidden = false;
      this.host.shownChanged(true);
      // The chats may have changed while it was hidden: a query left in the field is asked again.
      this.result = undefined;
      if (this.query().length > 0) this.scheduleSearch(0);
      this.render();
    }
    this.field.focus();
  }

  hide(): void {
    if (!this.shown) return;
    this.el.hidden = true;
    this.renaming = undefined;
    this.host.shownChanged(false);
  }

  toggle(): void {
    if (this.shown) this.hide();
    else this.show();
  }

  /** The host's chat list changed (a rename, a delete, a new turn): drawn again, the search asked again. */
  update(chats: readonly ChatSummaryView[], chatId: string): void {
    this.chats = [...chats];
    this.chatId = chatId;
    if (!this.shown) return;
    if (this.renaming && !this.chats.some((c) => c.id === this.renaming)) this.renaming = undefined;
    if (this.query().length > 0) this.scheduleSearch(0);
    this.render();
  }

  private query(): string {
    return this.field.value.trim();
  }

  private onInput(): void {
    this.result = undefined;
    this.render();
    if (this.query().length > 0) this.scheduleSearch(SEARCH_DELAY_MS);
  }

  private scheduleSearch(delay: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.search(), delay);
  }

  private async search(): Promise<void> {
    const query = this.query();
    if (query.length === 0) return;
    const ticket = ++this.searching;
    const value = await this.host.search(query);
    if (ticket !== this.searching || query !== this.query()) return;
    if (!value) {
      this.status.textContent = 'The search failed: titles only.';
      return;
    }
    this.result = { query, value };
    this.render();
  }

  /** The chats to list now, with the excerpt that matched when the host found it in the text. */
  private shownChats(): { chat: ChatSummaryView; excerpt?: string }[] {
    const query = this.query();
    if (query.length === 0) return this.chats.map((chat) => ({ chat }));
    if (this.result?.query === query) {
      const byId = new Map(this.chats.map((c) => [c.id, c]));
      return this.result.value.hits.flatMap((hit) => {
        const chat = byId.get(hit.chatId);
        return chat ? [{ chat, excerpt: hit.excerpt }] : [];
      });
    }
    const needle = query.toLowerCase();
    return this.chats.filter((c) => c.title.toLowerCase().includes(needle)).map((chat) => ({ chat }));
  }

  private render(): void {
    if (!this.shown) return;
    const focusedId = (document.activeElement as HTMLElement | null)?.closest('[data-chat-id]')?.getAttribute('data-chat-id');
    const shown = this.shownChats();
    const query = this.query();
    const answered = query.length === 0 || this.result?.query === query;
    const complete = query.length === 0 || this.result?.value.complete !== false;
    this.status.textContent = !answered
      ? `Searching ${this.chats.length} chats…`
      : shown.length === 0
        ? query.length > 0
          ? `No chat mentions “${query}”.`
          : 'No chats yet.'
        : `${shown.length} ${shown.length === 1 ? 'chat' : 'chats'}${query ? ` mention “${query}”` : ''}${complete ? '' : ' (the search stopped early: there may be more)'}`;
    const groups = groupByDate(shown, (s) => s.chat.updatedAt, Date.now());
    this.list.replaceChildren(
      ...groups.map((g) =>
        h(
          'div',
          { class: 'history-group', role: 'group', 'aria-label': g.label },
          h('h3', { class: 'history-group-title' }, g.label),
          h('ul', { class: 'history-rows' }, ...g.items.map((s) => this.row(s.chat, s.excerpt))),
        ),
      ),
    );
    if (focusedId) this.list.querySelector<HTMLElement>(`[data-chat-id="${CSS.escape(focusedId)}"] .history-open`)?.focus();
  }

  private row(chat: ChatSummaryView, excerpt: string | undefined): HTMLElement {
    const current = chat.id === this.chatId;
    const title = chat.title.trim() || 'New Chat';
    const attrs = { class: `history-row${current ? ' current' : ''}`, 'data-testid': 'strata-history-item', 'data-chat-id': chat.id };
    if (this.renaming === chat.id) {
      const field = h('input', {
        type: 'text',
        class: 'history-rename',
        value: title,
        maxlength: MAX_TITLE_CHARS,
        'aria-label': 'Chat title',
        'data-testid': 'strata-history-rename-input',
      });
      let done = false;
      const commit = (save: boolean) => {
        if (done) return;
        done = true;
        this.renaming = undefined;
        const next = field.value.trim();
        if (save && next.length > 0 && next !== chat.title) this.host.rename(chat.id, next.slice(0, MAX_TITLE_CHARS));
        this.render();
        this.focusRow(chat.id);
      };
      field.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          commit(e.key === 'Enter');
        }
      });
      field.addEventListener('blur', () => commit(true));
      requestAnimationFrame(() => {
        field.focus();
        field.select();
      });
      return h('li', attrs, field);
    }
    const meta = [`${chat.turns} ${chat.turns === 1 ? 'turn' : 'turns'}`, chat.cost, formatWhen(chat.updatedAt)]
      .filter(Boolean)
      .join(' · ');
    return h(
      'li',
      attrs,
      h(
        'button',
        { type: 'button', class: 'history-open', 'data-action': 'open', 'aria-current': current ? 'true' : undefined },
        h('span', { class: 'history-row-title' }, title),
        excerpt ? h('span', { class: 'history-row-excerpt', 'data-testid': 'strata-history-excerpt' }, excerpt) : null,
        h('span', { class: 'history-row-meta' }, current ? `${meta} · open` : meta),
      ),
      h(
        'span',
        { class: 'history-row-actions' },
        iconButton({ icon: 'edit', label: `Rename ${title} (F2)`, testid: 'strata-history-rename', action: 'rename' }),
        iconButton({ icon: 'trash', label: `Delete ${title} (Delete)`, testid: 'strata-history-delete', action: 'delete' }),
      ),
    );
  }

  private focusRow(chatId: string): void {
    this.list.querySelector<HTMLElement>(`[data-chat-id="${CSS.escape(chatId)}"] .history-open`)?.focus();
  }

  private act(action: string, chatId: string): void {
    switch (action) {
      case 'open':
        this.hide();
        if (chatId !== this.chatId) this.host.open(chatId, this.query() || undefined);
        break;
      case 'rename':
        this.renaming = chatId;
        this.render();
        break;
      case 'delete':
        this.host.delete(chatId);
        break;
    }
  }

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-action]') : null;
    if (!target) return;
    const action = target.getAttribute('data-action') ?? '';
    if (action === 'back') {
      this.hide();
      return;
    }
    const chatId = target.closest('[data-chat-id]')?.getAttribute('data-chat-id');
    if (chatId) this.act(action, chatId);
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (e.defaultPrevented || e.isComposing) return;
    const opens = Array.from(this.list.querySelectorAll<HTMLElement>('.history-open'));
    const row = e.target instanceof Element ? e.target.closest('[data-chat-id]') : null;
    const chatId = row?.getAttribute('data-chat-id');
    const i = row ? opens.findIndex((b) => row.contains(b)) : -1;
    if (e.key === 'Escape') {
      if (e.target === this.field && this.field.value.length > 0) return; // The field clears itself first.
      e.preventDefault();
      this.hide();
      return;
    }
    if (e.target === this.field) {
      if (e.key === 'ArrowDown' && opens.length > 0) {
        e.preventDefault();
        opens[0].focus();
      } else if (e.key === 'Enter' && opens.length > 0) {
        e.preventDefault();
        opens[0].click();
      }
      return;
    }
    if (!chatId || e.target instanceof HTMLInputElement) return;
    const to: Record<string, number> = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: opens.length - 1 };
    if (e.key in to) {
      e.preventDefault();
      const next = to[e.key];
      if (next < 0) this.field.focus();
      else opens[Math.min(opens.length - 1, next)]?.focus();
    } else if (e.key === 'F2') {
      e.preventDefault();
      this.act('rename', chatId);
    } else if (e.key === 'Delete') {
      e.preventDefault();
      this.act('delete', chatId);
    }
  }
}
