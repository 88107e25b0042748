import './chunkLoading';
import '@vscode-elements/elements/dist/vscode-progress-bar/index.js';
import { PROTOCOL_VERSION, parseHostToWebviewMessage, type HostToWebviewMessage, type PanelState } from '../src/protocol/messages';
import type { PanelResponseOf, WebviewRequest, WebviewRequestKind, WebviewRequestOf } from '../src/protocol/requests';
import { Banners } from './banners';
import { Composer } from './composer';
import { setCodeWrap } from './codeBlocks';
import { Conversation } from './conversation';
import { FindBar } from './findBar';
import { h } from './dom';
import { EmptyState } from './emptyState';
import { Header } from './header';
import { HistoryView } from './historyView';
import { HostClient, type RequestResult } from './ipc';
import { Meter } from './meter';
import { ModelMenu } from './modelMenu';
import { PreviewCard } from './preview';
import { Tooltips } from './tooltip';
import { setToolIcons } from './messages';
import { savedViews, TranscriptKeeper } from './savedTranscript';
import { keptParked, UiStateStore, type ParkedDraft } from './uiState';
import { vscodeApi } from './vscodeApi';
import { InContextRow } from './inContextRow';

/**
 * The chat panel. The host decides and sends view models; this renders them and sends requests.
 * Layout, top to bottom: header (chat title and list, New Chat), busy bar, notices and banners,
 * the conversation (messages, request preview, empty state), the composer (meter, chips, input).
 */
class App {
  private readonly client = new HostClient((m) => vscodeApi().postMessage(m));
  private readonly ui = new UiStateStore();
  private readonly transcript = new TranscriptKeeper((transcript) => this.ui.update({ transcript }));
  private readonly tooltips: Tooltips;
  private readonly header: Header;
  private readonly progress: HTMLElement;
  private readonly banners: Banners;
  private readonly conversation: Conversation;
  private readonly preview: PreviewCard;
  private readonly empty: EmptyState;
  private readonly meter: Meter;
  private readonly composer: Composer;
  private readonly inContext: InContextRow;
  private readonly models: ModelMenu;
  private chatId = '';
  /** The chats the panel has listed (a chat switched to that is not among them was just created). */
  private knownChats = new Set<string>();
  /** The last user turn shown in this chat (a draft begun now is newer than it). */
  private lastUserTurn = 0;
  private busy = false;
  private initialized = false;
  private turnsStarted = 0;
  private readonly findBar: FindBar;
  /** A History search hit being opened: the chat opens at the match. */
  private findOnOpen: { chatId: string; query: string } | undefined;

  constructor(root: HTMLElement) {
    this.tooltips = new Tooltips(document.body);
    const history = new HistoryView({
      search: async (query) => {
        const result = await this.request({ kind: 'searchChats', query });
        return result.ok ? result.value : undefined;
      },
      open: (chatId, query) => {
        this.findOnOpen = query ? { chatId, query } : undefined;
        this.fire({ kind: 'switchChat', chatId });
        if (!query) this.composer.focus();
      },
      rename: (chatId, title) => this.fire({ kind: 'renameChat', chatId, title }),
      delete: (chatId) => this.fire({ kind: 'deleteChat', chatId, confirm: true }),
      shownChanged: (shown) => {
        this.conversation.el.hidden = shown;
        if (!shown) this.composer.focus();
      },
    });
    this.header = new Header(
      {
        newChat: () => {
          this.fire({ kind: 'newChat' });
          this.composer.focus();
        },
        switchChat: (chatId) => this.fire({ kind: 'switchChat', chatId }),
        renameChat: (chatId, title) => this.fire({ kind: 'renameChat', chatId, title }),
        deleteChat: (chatId) => this.fire({ kind: 'deleteChat', chatId }),
      },
      history,
    );
    this.progress = h('vscode-progress-bar', { class: 'busy-bar', indeterminate: true, 'aria-label': 'Generating a reply' });
    this.progress.hidden = true;
    this.banners = new Banners((bannerId, action) => this.request({ kind: 'bannerAction', bannerId, action }));
    this.empty = new EmptyState({
      attach: (what) => this.fire({ kind: 'attach', what }),
      selectModel: () => this.fire({ kind: 'selectModel' }),
    });
    this.conversation = new Conversation(
      {
        loadOlder: async (beforeTurn) => (await this.request({ kind: 'loadOlder', chatId: this.chatId, beforeTurn })).ok,
        copy: (text, button) => void this.copy(text, button),
        insert: (code) => this.fire({ kind: 'insertCode', code }),
        insertTerminal: (code) => this.fire({ kind: 'insertTerminal', code }),
        codeWrapChanged: (wrap) => this.ui.update({ codeWrap: wrap }),
        apply: (block, blockId) =>
          void this.request({ kind: 'applyCode', code: block.code, info: block.info, lineAbove: block.lineAbove, blockId }).then(
            (result) => {
              // The host may be waiting on the user (a quick pick, a confirmation): a late answer is no failure.
              if (!result.ok && !result.timedOut) this.composer.showStatus(result.error);
            },
          ),
        undoApply: (blockId) =>
          void this.request({ kind: 'undoApply', blockId }).then((result) => {
            if (!result.ok && !result.timedOut) this.composer.showStatus(result.error);
          }),
        resolveCitations: async (paths) => {
          const result = await this.request({ kind: 'resolveCitations', paths });
          return result.ok ? result.value : undefined;
        },
        openCitation: (citation) => this.fire({ kind: 'openCitation', ...citation }),
        regenerate: () => this.fire({ kind: 'regenerate' }),
        setPrice: () => this.fire({ kind: 'openSetting', setting: 'strata.prices' }),
        scrolled: (p) => this.saveScroll(p),
      },
      this.tooltips,
      this.empty.el,
    );
    this.preview = new PreviewCard(
      {
        copy: (text, button) => void this.copy(text, button),
        insert: (code) => this.fire({ kind: 'insertCode', code }),
        collapsedChanged: (collapsed) => this.ui.update({ requestCollapsed: collapsed }),
      },
      this.ui.get().requestCollapsed,
    );
    this.meter = new Meter(this.tooltips, () => this.fire({ kind: 'openSetting', setting: 'strata.prices' }));
    this.models = new ModelMenu({
      listModels: () => this.request({ kind: 'listModels' }),
      selectModel: (o) => this.fire(o ? { kind: 'selectModel', provider: o.provider, model: o.model } : { kind: 'selectModel' }),
    });
    this.composer = new Composer(
      {
        send: async (text) => {
          const started = this.turnsStarted;
          const result = await this.request({ kind: 'send', text });
          // The turn is running (the host answers when it accepted it; a late answer is no failure).
          if (!result.ok && result.timedOut && this.turnsStarted > started) return { ok: true, value: undefined };
          return result;
        },
        stop: () => this.fire({ kind: 'stop' }),
        attach: (what) => this.fire({ kind: 'attach', what }),
        removeChip: (chipId) => this.request({ kind: 'removeChip', chipId }),
        restoreChip: (chipId) => this.request({ kind: 'restoreChip', chipId }),
        dismissRemovedChip: (chipId) => this.request({ kind: 'dismissRemovedChip', chipId }),
        pinChip: (chipId, pinned) => this.request({ kind: 'pinChip', chipId, pinned }),
        attachDefinitions: (chipId) => this.request({ kind: 'attachDefinitions', chipId }),
        draftChanged: (draft) => {
          if (draft.length > 0) this.client.typing();
          const begun = draft.length > 0 && this.ui.get().draft.length === 0;
          this.ui.update(begun ? { draft, draftChatId: this.chatId, draftAfterTurn: this.lastUserTurn } : { draft });
        },
        chat: () => this.chatId,
        park: (chatId, text) => this.park(chatId, text),
        openModels: (anchor) => void this.models.toggle(anchor),
        error: (message) => this.composer.showStatus(message),
        mentions: (query) => this.request({ kind: 'mentions', query }),
        attachMention: (ref) => this.request({ kind: 'attachMention', ref }),
        slash: (name) => this.fire({ kind: 'slashCommand', name }),
        addContext: () => this.fire({ kind: 'addContext' }),
        newChat: () => this.fire({ kind: 'newChat' }),
      },
      this.meter,
      this.ui.get().draft,
      this.tooltips,
    );
    this.inContext = new InContextRow({ act: (ref, action) => this.fire({ kind: 'inContextItem', ref, action }) });
    this.composer.mountAboveInput(this.inContext.el);
    setCodeWrap(this.ui.get().codeWrap === true);
    this.findBar = new FindBar({
      prepare: () => this.conversation.prepareFind(),
      bodies: () => this.conversation.messageBodies(),
      root: () => this.conversation.el,
      reveal: (el) => this.conversation.revealHit(el),
    });
    root.replaceChildren(
      this.header.el,
      this.progress,
      this.banners.el,
      this.findBar.el,
      this.conversation.el,
      history.el,
      this.composer.el,
    );
    root.classList.add('strata');
    // Until the host's first state arrives, nothing chat-specific is shown (no flash of an empty chat),
    // except the last messages this view showed (a window reload), replaced by the host's state.
    document.body.classList.add('strata-loading');
    this.showSaved();

    this.listen();
    this.client.ready();
  }

  /**
   * Where the conversation is scrolled, kept with the view's state. The saved transcript shown until
   * the host's first state is a stand-in: where it scrolls is not where the user was, so it does not
   * replace the position that state restores.
   */
  private saveScroll(p: { atBottom: boolean; anchorId?: string; anchorOffset?: number }): void {
    if (document.body.classList.contains('strata-saved')) return;
    this.ui.update({ chatId: this.chatId, atBottom: p.atBottom, anchorId: p.anchorId, anchorOffset: p.anchorOffset });
  }

  /** The last messages this view showed (kept with its state), until the host's first state replaces them. */
  private showSaved(): void {
    const saved = this.ui.get().transcript;
    if (!saved || saved.messages.length === 0) return;
    document.body.classList.add('strata-saved');
    const ui = this.ui.get();
    const restore =
      saved.chatId === ui.chatId ? { atBottom: ui.atBottom, anchorId: ui.anchorId, anchorOffset: ui.anchorOffset } : undefined;
    this.conversation.setMessages(saved.chatId, savedViews(saved), false, restore);
  }

  /** The host's messages and the panel's own keys and focus. */
  private listen(): void {
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      const message = parseHostToWebviewMessage(event.data);
      if (message) this.handle(message);
    });
    window.addEventListener('resize', () => this.composer.setBusy(this.busy));
    // Escape anywhere in the panel stops a streaming reply (unless a menu, field or tooltip took it).
    window.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || e.defaultPrevented || e.isComposing || !this.busy) return;
      e.preventDefault();
      this.fire({ kind: 'stop' });
    });
    // Focusing the view (its Focus command, a click on its title) lands in the input.
    window.addEventListener('focus', () => {
      if (document.activeElement === document.body || document.activeElement === null) this.composer.focus();
    });
  }

  /** A request whose failure is shown under the input (the host may also post a banner). */
  private fire(request: WebviewRequest): void {
    void this.request(request).then((result) => {
      if (!result.ok) this.composer.showStatus(result.error);
    });
  }

  private request<K extends WebviewRequestKind>(request: WebviewRequestOf<K>): Promise<RequestResult<PanelResponseOf<K>>> {
    return this.client.request(request);
  }

  private async copy(text: string, button: HTMLButtonElement): Promise<void> {
    const result = await this.request({ kind: 'copy', text });
    if (!result.ok) {
      this.composer.showStatus(result.error);
      return;
    }
    const glyph = button.querySelector('.codicon');
    const label = button.getAttribute('aria-label') ?? '';
    glyph?.classList.replace('codicon-copy', 'codicon-check');
    button.setAttribute('aria-label', 'Copied');
    setTimeout(() => {
      glyph?.classList.replace('codicon-check', 'codicon-copy');
      button.setAttribute('aria-label', label);
    }, 1500);
  }

  handle(m: HostToWebviewMessage): void {
    switch (m.type) {
      case 'init':
        if (m.protocolVersion !== PROTOCOL_VERSION) {
          this.banners.addLocal({
            id: 'local:protocol',
            severity: 'error',
            message: `The chat panel (protocol ${PROTOCOL_VERSION}) and the extension (protocol ${m.protocolVersion}) do not match. Reload the window (Developer: Reload Window).`,
            actions: [],
          });
        }
        document.body.setAttribute('data-strata-version', m.extensionVersion);
        if (m.toolIcons) setToolIcons(m.toolIcons);
        this.applyState(m.state);
        break;
      case 'state':
        this.applyState(m.state);
        break;
      case 'response':
        this.client.handleResponse(m);
        break;
      case 'chats':
        this.header.update(m.chats, m.chatId, m.chatTitle);
        for (const c of m.chats) this.knownChats.add(c.id);
        break;
      case 'chips':
        this.composer.setChips(m.chips);
        break;
      case 'inContext':
        this.inContext.set(m.inContext);
        break;
      case 'meter':
        this.meter.update(m.meter);
        break;
      case 'model':
        this.setModel(m.model);
        break;
      case 'banners':
        this.banners.setBanners(m.banners);
        break;
      case 'notices':
        this.banners.setNotices(m.notices);
        break;
      case 'turnStarted':
        this.turnsStarted++;
        if (m.chatId === this.chatId) this.lastUserTurn = Math.max(this.lastUserTurn, m.user.turn);
        this.conversation.startTurn(m.chatId, m.turnId, m.user, m.assistant);
        this.transcript.turnStarted(m.turnId, m.user);
        if (m.chatId === this.chatId) this.setBusy(true);
        break;
      case 'chunk':
        this.conversation.applyChunk(m.chatId, m.turnId, m.seq, m.text);
        break;
      case 'toolStep':
        this.conversation.applyToolStep(m.chatId, m.turnId, m.step);
        break;
      case 'turnEnded':
        this.conversation.endTurn(m.chatId, m.turnId, m.assistant, m.kept);
        this.transcript.turnEnded(m.chatId, m.turnId, m.assistant, m.kept);
        if (m.chatId === this.chatId) this.setBusy(false);
        break;
      case 'removeTurn':
        this.conversation.removeTurn(m.chatId, m.turn);
        this.transcript.removeTurn(m.chatId, m.turn);
        break;
      case 'olderMessages':
        this.conversation.prependOlder(m.chatId, m.messages, m.hasOlder);
        break;
      case 'preview':
        this.setPreview(m.preview ?? undefined, true);
        break;
      case 'setInput':
        // A failed send's text goes back to the chat it was written in (the user may have switched since).
        if (m.chatId !== undefined && m.chatId !== this.chatId) {
          this.park(m.chatId, m.text);
          break;
        }
        this.composer.restoreText(m.text);
        this.composer.focus();
        break;
      case 'focusInput':
        this.composer.focus();
        break;
      case 'suggestion':
        this.composer.setSuggestion(m.suggestion);
        break;
      case 'applyState':
        this.conversation.showApplyState(m.blockId, { state: m.state, accepted: m.accepted, total: m.total });
        break;
    }
  }

  private applyState(s: PanelState): void {
    const first = !this.initialized;
    this.initialized = true;
    document.body.classList.remove('strata-loading', 'strata-saved');
    const sameChat = s.chatId === this.ui.get().chatId;
    // The chat whose draft the input holds: the one shown until now, or (a view loaded again) the
    // one the saved draft was begun in.
    const draftOf = first ? this.ui.get().draftChatId : this.chatId;
    this.chatId = s.chatId;
    // Another chat: its own "In context" row follows with its meter.
    if (!sameChat) this.inContext.set({ items: [], tokens: 0 });
    if (draftOf !== undefined && draftOf !== s.chatId) {
      // A chat just created (New Chat) takes the draft along: starting over is often why one was made.
      const created = !first && !this.knownChats.has(s.chatId) && s.messages.length === 0 && !this.ui.get().parked?.[s.chatId];
      this.switchDraft(draftOf, s.chatId, created);
    }
    this.knownChats = new Set(s.chats.map((c) => c.id));
    this.header.update(s.chats, s.chatId, s.chatTitle);
    this.banners.setNotices(s.notices);
    this.banners.setBanners(s.banners);
    if (s.meter) this.meter.update(s.meter);
    else this.meter.pending();
    this.setModel(s.model);
    this.composer.setChips(s.chips);
    this.setPreview(s.preview, false);
    const ui = this.ui.get();
    const lastUser = [...s.messages].reverse().find((m) => m.role === 'user');
    // A draft restored from before a send that the editor did not save again before the window
    // reloaded (the browser workbench saves view state now and then, even mid-typing): when a user
    // message came after the draft was begun and starts with it, the draft became that message — it
    // is not offered again, one Enter away from a second send. (A draft saved without where it was
    // begun: only when it is that message exactly.)
    const draft = ui.draft.trim();
    if (first && draft.length > 0 && lastUser) {
      const sent = lastUser.text.trim();
      const begunHere = ui.draftChatId === s.chatId && ui.draftAfterTurn !== undefined;
      const becameIt = begunHere
        ? lastUser.turn > ui.draftAfterTurn! && sent.startsWith(draft)
        : ui.draftAfterTurn === undefined && sent === draft;
      if (becameIt) this.composer.setText('');
    }
    this.lastUserTurn = lastUser?.turn ?? 0;
    // Where the user was (the view was hidden and shown again): only on the first state, same chat.
    const restore = first && sameChat ? { atBottom: ui.atBottom, anchorId: ui.anchorId, anchorOffset: ui.anchorOffset } : undefined;
    this.conversation.setMessages(s.chatId, s.messages, s.hasOlder, restore);
    this.transcript.setChat(s.chatId, s.messages);
    this.findBar.reset();
    const find = this.findOnOpen;
    if (find && find.chatId === s.chatId) {
      this.findOnOpen = undefined;
      void this.findBar.open(find.query);
    }
    if (!first || !sameChat) this.ui.update({ chatId: s.chatId, atBottom: true, anchorId: undefined, anchorOffset: undefined });
    this.setBusy(s.busy);
  }

  /**
   * A draft belongs to its chat: the input's text is parked under the chat it was written in, and the
   * draft left in the chat switched to (if any) comes back, so a question written for one chat is
   * not sent in another with that chat's context. A chat just created (`carry`) has no context yet:
   * the text moves there instead.
   */
  private switchDraft(from: string, to: string, carry: boolean): void {
    const ui = this.ui.get();
    const parked: Record<string, ParkedDraft> = { ...(ui.parked ?? {}) };
    const text = this.composer.text();
    delete parked[from];
    if (carry) {
      this.ui.update({
        parked: keptParked(parked),
        draftChatId: text.length > 0 ? to : undefined,
        draftAfterTurn: text.length > 0 ? 0 : undefined,
      });
      return;
    }
    if (text.trim().length > 0)
      parked[from] = ui.draftChatId === from && ui.draftAfterTurn !== undefined ? { text, afterTurn: ui.draftAfterTurn } : { text };
    const next = parked[to];
    delete parked[to];
    this.composer.setText(next?.text ?? '');
    this.ui.update({
      parked: keptParked(parked),
      draft: next?.text ?? '',
      draftChatId: next ? to : undefined,
      draftAfterTurn: next?.afterTurn,
    });
  }

  /**
   * Keeps `text` as the draft of a chat not shown: it comes back when that chat is shown again,
   * before whatever was already parked there (a blank line between).
   */
  private park(chatId: string, text: string): void {
    if (text.trim().length === 0) return;
    const parked: Record<string, ParkedDraft> = { ...(this.ui.get().parked ?? {}) };
    const had = parked[chatId];
    delete parked[chatId];
    parked[chatId] = had && had.text.trim().length > 0 && had.text !== text ? { text: `${text}\n\n${had.text}` } : { text };
    this.ui.update({ parked: keptParked(parked) });
  }

  private setModel(model: PanelState['model']): void {
    this.composer.setModel(model);
    this.models.setModel(model);
    this.empty.setConfigured(model.configured);
  }

  private setPreview(preview: PanelState['preview'], reveal: boolean): void {
    this.preview.update(preview);
    if (preview && !this.preview.el.isConnected) this.conversation.tail.append(this.preview.el);
    this.conversation.updateEmpty();
    if (preview && reveal) this.conversation.revealEnd();
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    this.progress.hidden = !busy;
    this.composer.setBusy(busy);
    this.conversation.setBusy(busy);
    document.body.classList.toggle('strata-busy', busy);
  }
}

function main(): void {
  const root = document.getElementById('app');
  if (!root) return;
  new App(root);
}

main();
