import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import type { MentionRef, MentionResult, MentionView, SlashHostCommand, SuggestionView } from '../src/protocol/mentions';
import { MAX_INPUT_CHARS, type AttachWhat, type ChipView, type ModelView } from '../src/protocol/messages';
import { ComposerCompletion, type Trigger } from './composerCompletion';
import { h, icon } from './dom';
import { TextFitter } from './fitText';
import { formatInt } from '../src/common/numberFormat';
import type { RequestResult } from './ipc';
import type { Meter } from './meter';
import type { Tooltips } from './tooltip';
import type { SlashCommand } from './slashCommands';
import { ChipRow, placeholderFor } from './chipRow';

export interface ComposerHost {
  /** The host's answer: accepted, or why not. */
  send(text: string): Promise<RequestResult>;
  stop(): void;
  attach(what: AttachWhat): void;
  /** Takes the chip off the next message; the host keeps it in its place, with Undo, until a send. */
  removeChip(id: string): Promise<RequestResult>;
  /** Undo of `removeChip`. */
  restoreChip(id: string): Promise<RequestResult>;
  /** Forgets a chip taken off the next message (its Undo goes). */
  dismissRemovedChip(id: string): Promise<RequestResult>;
  pinChip(id: string, pinned: boolean): Promise<RequestResult>;
  /** The selection chip again, with the definitions it uses. */
  attachDefinitions(id: string): Promise<RequestResult>;
  draftChanged(text: string): void;
  /** The chat the panel shows (a send's answer may come after the user switched chats). */
  chat(): string | undefined;
  /** Keeps `text` as the draft of a chat the panel no longer shows. */
  park(chatId: string, text: string): void;
  openModels(anchor: HTMLElement): void;
  error(message: string): void;
  /** The `@` picker's entries for a query (the host lists and ranks them). */
  mentions(query: string): Promise<RequestResult<MentionView[]>>;
  /** Attach what a mention, the suggestion or a `/` template names (through the host's attach path). */
  attachMention(ref: MentionRef): Promise<RequestResult<MentionResult>>;
  slash(name: SlashHostCommand): void;
  newChat(): void;
  /** Add Context…: the host's quick pick of files, symbols, a folder and Git changes. */
  addContext(): void;
}

export const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
export const ATTACH_SELECTION_KEYS = isMac ? '⌥⌘A' : 'Ctrl+Alt+A';

/**
 * The input area: the meter, the attachment chips, the textarea (Enter sends, Shift+Enter is a new
 * line, nothing is sent while an IME composition is open), attach buttons, the model picker, Send
 * and Stop.
 */
export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLElement;
  private readonly stopButton: HTMLElement;
  private readonly modelButton: HTMLButtonElement;
  private readonly modelLabel: HTMLElement;
  private readonly modelIcon: HTMLElement;
  private readonly fitter = new TextFitter();
  private readonly status: HTMLElement;
  private readonly completion: ComposerCompletion;
  private busy = false;
  private composing = false;
  private readonly chipRow: ChipRow;
  private statusTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly autosize = !CSS.supports('field-sizing', 'content');

  constructor(
    private readonly host: ComposerHost,
    meter: Meter,
    draft: string,
    private readonly tooltips?: Tooltips,
  ) {
    this.chipRow = new ChipRow(
      {
        removeChip: (id) => this.host.removeChip(id),
        restoreChip: (id) => this.host.restoreChip(id),
        dismissRemovedChip: (id) => this.host.dismissRemovedChip(id),
        pinChip: (id, pinned) => this.host.pinChip(id, pinned),
        attachDefinitions: (id) => this.host.attachDefinitions(id),
        error: (message) => this.host.error(message),
        includeSuggestion: (suggestion) => void this.includeSuggestion(suggestion),
        placeholder: (text) => (this.input.placeholder = text),
        focusInput: () => this.focus(),
      },
      tooltips,
    );
    this.input = h('textarea', {
      class: 'input',
      rows: 1,
      'data-testid': 'strata-input',
      'aria-label': 'Message',
      // One line at a 300 px side bar (Enter and Shift+Enter are explained in the empty state and on Send).
      placeholder: placeholderFor([]),
      spellcheck: 'true',
    });
    this.input.value = draft;
    this.completion = new ComposerCompletion(this.input, {
      mentions: (query) => this.host.mentions(query),
      pickMention: (mention, trigger) => void this.pickMention(mention, trigger),
      pickSlash: (command, trigger) => void this.pickSlash(command, trigger),
    });

    const attach = (what: AttachWhat, iconName: string, label: string, testid: string) => {
      const b = h('vscode-toolbar-button', { icon: iconName, label, title: label, 'data-testid': testid });
      b.addEventListener('click', () => this.host.attach(what));
      return b;
    };

    const addContext = h('vscode-toolbar-button', {
      icon: 'attach',
      label: 'Add Context…',
      title: 'Add Context… (files, symbols, a folder, Git changes)',
      'data-testid': 'strata-add-context',
    });
    addContext.addEventListener('click', () => this.host.addContext());

    this.modelIcon = icon('sparkle');
    this.modelLabel = h('span', { class: 'model-label' }, 'Model');
    this.modelButton = h(
      'button',
      { type: 'button', class: 'model-btn', 'data-testid': 'strata-model', 'aria-haspopup': 'menu', 'aria-expanded': 'false' },
      this.modelIcon,
      this.modelLabel,
      icon('chevron-down', 'model-chevron'),
    );
    this.modelButton.addEventListener('click', () => this.host.openModels(this.modelButton));

    this.stopButton = h('vscode-button', {
      secondary: true,
      icon: 'debug-stop',
      'icon-only': true,
      'aria-label': 'Stop',
      title: 'Stop',
      'data-testid': 'strata-stop',
    });
    this.stopButton.hidden = true;
    this.stopButton.addEventListener('click', () => {
      if (this.busy) this.host.stop();
    });
    this.sendButton = h('vscode-button', {
      icon: 'send',
      'icon-only': true,
      'aria-label': 'Send',
      title: 'Send (Enter)',
      'data-testid': 'strata-send',
    });
    this.sendButton.addEventListener('click', () => void this.send());

    this.status = h('div', { class: 'composer-status', role: 'status', 'data-testid': 'strata-status' });
    this.status.hidden = true;

    const box = h(
      'div',
      { class: 'input-box' },
      this.completion.picker.el,
      this.chipRow.el,
      this.input,
      h(
        'div',
        { class: 'input-toolbar' },
        addContext,
        attach('activeFile', 'file-add', 'Attach Active File', 'strata-attach-file'),
        attach('selection', 'list-selection', `Attach Selection (${ATTACH_SELECTION_KEYS})`, 'strata-attach-selection'),
        attach('openEditors', 'files', 'Attach Open Editors', 'strata-attach-editors'),
        this.modelButton,
        h('span', { class: 'spacer' }),
        this.stopButton,
        this.sendButton,
      ),
    );
    this.el = h('footer', { class: 'composer' }, meter.row, meter.expired, box, this.status);

    this.input.addEventListener('keydown', (e) => this.onKeyDown(e));
    this.input.addEventListener('compositionstart', () => {
      this.composing = true;
    });
    // Some engines send the committing Enter's keydown right after compositionend.
    this.input.addEventListener('compositionend', () => setTimeout(() => (this.composing = false), 0));
    this.input.addEventListener('input', () => {
      this.host.draftChanged(this.input.value);
      this.refresh();
    });
    // A narrower side bar wraps the chips onto more rows.
    let lastWidth = 0;
    new ResizeObserver(() => {
      const width = this.el.clientWidth;
      if (width === lastWidth) return;
      lastWidth = width;
      // Laid out in the next frame: changing the observed element's height inside its own
      // notification would loop.
      requestAnimationFrame(() => this.chipRow.layout());
    }).observe(this.el);
    this.refresh();
  }

  private onKeyDown(e: KeyboardEvent): void {
    if (this.completion.handleKey(e)) return;
    if (e.key !== 'Enter' || e.shiftKey || e.altKey) return;
    // keyCode 229: the key went to an input method editor.
    if (e.isComposing || this.composing || e.keyCode === 229) return;
    e.preventDefault();
    void this.send();
  }

  async send(): Promise<void> {
    const text = this.input.value;
    if (this.busy || text.trim().length === 0) return;
    if (text.length > MAX_INPUT_CHARS) {
      this.showStatus(`The message is too long (${formatInt(text.length)} characters; at most ${formatInt(MAX_INPUT_CHARS)}).`);
      return;
    }
    const chat = this.host.chat();
    this.setText('');
    const sending = this.chipRow.sending();
    this.focus();
    const result = await this.host.send(text);
    // Accepted: the turn started (its chips left with it) or ended already; refused: they stay.
    this.chipRow.sendAnswered(sending);
    if (result.ok) return;
    // Nothing typed is lost: a refused message comes back, to the chat it was written in.
    if (chat !== undefined && this.host.chat() !== chat) {
      this.host.park(chat, text);
      this.showStatus(`${result.error} The message was kept as the draft of the chat it was written in.`);
      return;
    }
    this.restoreText(text);
    this.showStatus(result.error);
  }

  /**
   * Puts a message that was not sent back into the input; what the user typed since stays after
   * it (a blank line between), so neither is lost.
   */
  restoreText(text: string): void {
    const typed = this.input.value;
    this.setText(typed.trim().length === 0 || typed === text ? text : `${text}\n\n${typed}`);
  }

  /** What the input holds. */
  text(): string {
    return this.input.value;
  }

  setText(text: string): void {
    this.input.value = text;
    this.host.draftChanged(text);
    this.refresh();
  }

  /** Puts `el` (the "In context" row) right above the input box. */
  mountAboveInput(el: HTMLElement): void {
    this.el.querySelector('.input-box')?.before(el);
  }

  focus(): void {
    this.input.focus();
  }

  setBusy(busy: boolean): void {
    const ended = this.busy && !busy;
    if (busy && !this.busy) this.chipRow.turnStarted();
    this.busy = busy;
    if (ended) this.chipRow.turnEnded();
    this.refresh();
  }

  private refresh(): void {
    const canSend = !this.busy && this.input.value.trim().length > 0;
    this.sendButton.toggleAttribute('disabled', !canSend);
    this.sendButton.setAttribute('aria-disabled', String(!canSend));
    // Stop takes Send's place while a reply streams (one button where the eye already is).
    this.stopButton.hidden = !this.busy;
    this.sendButton.hidden = this.busy;
    this.el?.classList.toggle('busy', this.busy);
    if (this.autosize) {
      this.input.style.height = 'auto';
      this.input.style.height = `${Math.min(this.input.scrollHeight + 2, Math.round(window.innerHeight * 0.4))}px`;
    }
  }

  setModel(model: ModelView): void {
    const label = model.imitation && !/imitation/i.test(model.label) ? `Local imitation server · ${model.label}` : model.label;
    const text = label || (model.configured ? model.model : 'No model configured');
    // A narrow panel shortens the provider, then shows the model's name alone (the title has it all);
    // the button's name starts with what it shows.
    const cut = text.lastIndexOf(' · ');
    const name = text.slice(cut + 3);
    const shorter = model.imitation ? [`Imitation · ${name}`] : [];
    this.fitter.set(this.modelLabel, cut < 0 ? [text] : [text, ...shorter, name], (shown) =>
      this.modelButton.setAttribute('aria-label', `Model: ${shown === text ? text : `${shown} (${text})`}. Choose a model`),
    );
    this.modelIcon.className = `codicon codicon-${model.imitation ? 'beaker' : model.configured ? 'sparkle' : 'warning'}`;
    this.modelButton.classList.toggle('unconfigured', !model.configured);
    this.modelButton.setAttribute('data-imitation', String(model.imitation));
    this.modelButton.setAttribute('data-configured', String(model.configured));
    const title = `${text}${model.configured ? '' : ' — no provider is configured: Send shows the request that would go out'}\nChoose a model`;
    this.modelButton.title = title;
  }

  setChips(chips: readonly ChipView[]): void {
    this.chipRow.set(chips);
  }

  /** The active editor offered for the next message (null: nothing offered). */
  setSuggestion(suggestion: SuggestionView | null): void {
    this.chipRow.suggestion.set(suggestion);
  }

  private async includeSuggestion(suggestion: SuggestionView): Promise<void> {
    if (!suggestion.available) {
      this.showStatus(`${suggestion.detail} cannot be included: ${suggestion.reason ?? 'it is not in the workspace'}`);
      return;
    }
    const hadFocus = document.activeElement === this.chipRow.suggestion.el;
    this.chipRow.suggestion.pending();
    const result = await this.host.attachMention(suggestion.ref);
    this.chipRow.suggestion.settled();
    if (!result.ok) this.showStatus(result.error);
    // The chip goes once it is attached: the keyboard carries on in the input.
    if (hadFocus) this.focus();
  }

  /** Takes `@query` or `/command` out of the input; the caret stays where it was. */
  private takeTrigger(trigger: Trigger): void {
    const text = this.input.value;
    this.setText(text.slice(0, trigger.start) + text.slice(trigger.end));
    this.input.setSelectionRange(trigger.start, trigger.start);
  }

  private async pickMention(mention: MentionView, trigger: Trigger): Promise<void> {
    this.takeTrigger(trigger);
    const result = await this.host.attachMention(mention.ref);
    if (!result.ok) {
      this.showStatus(result.error);
      return;
    }
    const insert = result.value.insertText;
    if (insert === undefined) return;
    // The problems snapshot goes where `@problems` was, on lines of its own.
    const text = this.input.value;
    const at = Math.min(trigger.start, text.length);
    const before = text.slice(0, at);
    const after = text.slice(at);
    const block = `${before.length > 0 && !before.endsWith('\n') ? '\n' : ''}${insert}\n`;
    this.setText(before + block + after);
    this.input.setSelectionRange(at + block.length, at + block.length);
    this.focus();
  }

  private async pickSlash(command: SlashCommand, trigger: Trigger): Promise<void> {
    this.takeTrigger(trigger);
    const action = command.action;
    switch (action.kind) {
      case 'newChat':
        this.host.newChat();
        return;
      case 'model':
        this.host.openModels(this.modelButton);
        return;
      case 'host':
        this.host.slash(action.name);
        return;
      case 'template': {
        const result = await this.host.attachMention({ kind: 'activeEditor' });
        if (!result.ok) this.showStatus(result.error);
        const labels = result.ok ? result.value.labels : [];
        const target = labels.length > 0 ? labels.map((l) => `\`${l}\``).join(', ') : 'the code';
        const rest = this.input.value.trim();
        const text = action.text(target) + (rest.length > 0 ? `\n\n${rest}` : '');
        this.setText(text);
        // Editable before sending: the caret waits at the end.
        this.input.setSelectionRange(text.length, text.length);
        this.focus();
        return;
      }
    }
  }

  showStatus(message: string): void {
    this.status.textContent = message;
    this.status.hidden = false;
    if (this.statusTimer !== undefined) clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => {
      this.status.hidden = true;
    }, 8000);
  }
}
