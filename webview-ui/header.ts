import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import { MAX_TITLE_CHARS, type ChatSummaryView } from '../src/protocol/messages';
import { h, icon, iconButton } from './dom';
import { TextFitter } from './fitText';
import { formatWhen } from './format';
import { Popover } from './popover';
import { wordCandidates } from './wordCut';

/** A view of the chats that follows the header's chat list (the history view). */
export interface ChatListFollower {
  update(chats: readonly ChatSummaryView[], chatId: string): void;
  toggle(): void;
}

export interface HeaderHost {
  newChat(): void;
  switchChat(chatId: string): void;
  renameChat(chatId: string, title: string): void;
  deleteChat(chatId: string): void;
}

/**
 * The top row: the chat's title (opens the chat list: switch, rename inline, delete after a
 * confirmation) and New Chat.
 */
export class Header {
  readonly el: HTMLElement;
  private readonly titleButton: HTMLButtonElement;
  private readonly titleText: HTMLElement;
  private readonly list: HTMLElement;
  private readonly popover: Popover;
  private readonly fitter = new TextFitter();
  private chats: ChatSummaryView[] = [];
  private chatId = '';
  /** Row being renamed or confirming deletion. */
  private editing: { chatId: string; mode: 'rename' | 'delete' } | undefined;

  constructor(
    private readonly host: HeaderHost,
    private readonly history?: ChatListFollower,
  ) {
    this.titleText = h('span', { class: 'chat-title-text' }, 'New Chat');
    this.titleButton = h(
      'button',
      {
        type: 'button',
        class: 'chat-title',
        'data-testid': 'strata-chat-title',
        'aria-haspopup': 'dialog',
        'aria-expanded': 'false',
        title: 'Chats',
      },
      icon('comment-discussion'),
      this.titleText,
      icon('chevron-down', 'chat-title-chevron'),
    );
    const newChat = h('vscode-toolbar-button', { icon: 'add', label: 'New Chat', title: 'New Chat', 'data-testid': 'strata-new-chat' });
    newChat.addEventListener('click', () => this.host.newChat());
    const showHistory = h('vscode-toolbar-button', {
      icon: 'history',
      label: 'Chat History',
      title: 'Chat History: search, rename, delete',
      'data-testid': 'strata-history-button',
    });
    showHistory.addEventListener('click', () => this.history?.toggle());

    this.list = h('div', { class: 'chat-list', role: 'dialog', 'aria-label': 'Chats', 'data-testid': 'strata-chat-list' });
    this.popover = new Popover(this.list, this.titleButton, () => {
      this.editing = undefined;
    });
    this.titleButton.addEventListener('click', () => {
      if (this.popover.isOpen) this.popover.close(false);
      else this.openList();
    });
    this.list.addEventListener('click', (e) => this.onListClick(e));
    this.el = h(
      'header',
      { class: 'header' },
      this.titleButton,
      h('span', { class: 'spacer' }),
      this.history ? showHistory : null,
      newChat,
    );
    document.body.append(this.list);
  }

  update(chats: readonly ChatSummaryView[], chatId: string, title: string): void {
    this.chats = [...chats];
    this.chatId = chatId;
    const shown = title.trim() || 'New Chat';
    this.fitter.set(this.titleText, wordCandidates(shown));
    this.titleButton.title = `${shown} — Chats`;
    this.titleButton.setAttribute('aria-label', `Chat: ${shown}. Show chats`);
    if (this.editing && !this.chats.some((c) => c.id === this.editing?.chatId)) this.editing = undefined;
    if (this.popover.isOpen) this.renderList();
    this.history?.update(chats, chatId);
  }

  private openList(): void {
    this.editing = undefined;
    this.renderList();
    this.popover.show();
    this.list.querySelector<HTMLElement>('[aria-current="true"], .chat-open')?.focus();
  }

  private renderList(): void {
    const rows = this.chats.map((chat) => this.row(chat));
    this.list.replaceChildren(
      h('div', { class: 'popover-title' }, 'Chats'),
      rows.length > 0 ? h('ul', { class: 'chat-rows' }, ...rows) : h('div', { class: 'popover-empty' }, 'No chats yet.'),
    );
    this.popover.place();
  }

  private row(chat: ChatSummaryView): HTMLElement {
    const current = chat.id === this.chatId;
    const attrs = {
      class: `chat-row${current ? ' current' : ''}`,
      'data-testid': 'strata-chat-item',
      'data-chat-id': chat.id,
      'data-current': String(current),
    };
    const title = chat.title.trim() || 'New Chat';
    if (this.editing?.chatId === chat.id && this.editing.mode === 'rename') {
      const field = h('vscode-textfield', {
        value: title,
        maxlength: MAX_TITLE_CHARS,
        'aria-label': 'Chat title',
        'data-testid': 'strata-chat-rename-input',
        class: 'chat-rename',
      });
      let done = false;
      const commit = (save: boolean) => {
        if (done) return;
        done = true;
        const next = field.value.trim();
        this.editing = undefined;
        if (save && next.length > 0 && next !== chat.title) this.host.renameChat(chat.id, next.slice(0, MAX_TITLE_CHARS));
        this.renderList();
        this.list.querySelector<HTMLElement>(`[data-chat-id="${CSS.escape(chat.id)}"] .chat-open`)?.focus();
      };
      field.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          commit(true);
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          commit(false);
        }
      });
      field.addEventListener('focusout', () => commit(true));
      requestAnimationFrame(() => {
        field.focus();
      });
      return h('li', attrs, field);
    }
    if (this.editing?.chatId === chat.id && this.editing.mode === 'delete') {
      const confirm = h('vscode-button', { 'data-testid': 'strata-chat-delete-confirm', 'data-action': 'delete-confirm' }, 'Delete');
      const cancel = h(
        'vscode-button',
        { secondary: true, 'data-testid': 'strata-chat-delete-cancel', 'data-action': 'delete-cancel' },
        'Cancel',
      );
      requestAnimationFrame(() => cancel.focus());
      return h(
        'li',
        { ...attrs, class: `${attrs.class} confirming`, role: 'alertdialog', 'aria-label': `Delete ${title}?` },
        h('span', { class: 'chat-confirm-text' }, `Delete “${title}”? This cannot be undone.`),
        h('span', { class: 'chat-confirm-actions' }, confirm, cancel),
      );
    }
    const meta = `${chat.turns} ${chat.turns === 1 ? 'turn' : 'turns'}${chat.cost ? ` · ${chat.cost}` : ''}${chat.updatedAt ? ` · ${formatWhen(chat.updatedAt)}` : ''}`;
    return h(
      'li',
      attrs,
      h(
        'button',
        { type: 'button', class: 'chat-open', 'data-action': 'open', 'aria-current': current ? 'true' : undefined, title },
        h('span', { class: 'chat-row-title' }, title),
        h('span', { class: 'chat-row-meta' }, meta),
      ),
      iconButton({ icon: 'edit', label: `Rename ${title}`, testid: 'strata-chat-rename', action: 'rename' }),
      iconButton({ icon: 'trash', label: `Delete ${title}`, testid: 'strata-chat-delete', action: 'delete' }),
    );
  }

  private onListClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-action]') : null;
    const row = target?.closest<HTMLElement>('[data-chat-id]');
    if (!target || !row) return;
    const chatId = row.getAttribute('data-chat-id') ?? '';
    switch (target.getAttribute('data-action')) {
      case 'open':
        this.popover.close(false);
        if (chatId !== this.chatId) this.host.switchChat(chatId);
        break;
      case 'rename':
        this.editing = { chatId, mode: 'rename' };
        this.renderList();
        break;
      case 'delete':
        this.editing = { chatId, mode: 'delete' };
        this.renderList();
        break;
      case 'delete-confirm':
        this.editing = undefined;
        this.host.deleteChat(chatId);
        this.renderList();
        break;
      case 'delete-cancel':
        this.editing = undefined;
        this.renderList();
        this.list.querySelector<HTMLElement>(`[data-chat-id="${CSS.escape(chatId)}"] [data-action="delete"]`)?.focus();
        break;
    }
  }
}
