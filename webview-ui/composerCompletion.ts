import type { MentionView } from '../src/protocol/mentions';
import type { RequestResult } from './ipc';
import { Picker, type PickerItem } from './picker';
import { matchSlashCommands, type SlashCommand } from './slashCommands';

/** The `@query` or `/query` the caret is in: where it starts and ends in the input. */
export interface Trigger {
  type: 'mention' | 'slash';
  start: number;
  end: number;
  query: string;
}

/**
 * The trigger before the caret: `/name` as the whole text before it (a command starts the message),
 * or `@query` at the start or after a space. An `@` inside a word (an e-mail address) is not one.
 */
export function triggerAt(text: string, caret: number): Trigger | undefined {
  const before = text.slice(0, caret);
  const slash = /^\/([\w-]*)$/.exec(before);
  if (slash) return { type: 'slash', start: 0, end: caret, query: slash[1] };
  const at = /(?:^|\s)@([^\s@]*)$/.exec(before);
  if (at) return { type: 'mention', start: caret - at[1].length - 1, end: caret, query: at[1] };
  return undefined;
}

export interface CompletionHost {
  mentions(query: string): Promise<RequestResult<MentionView[]>>;
  pickMention(mention: MentionView, trigger: Trigger): void;
  pickSlash(command: SlashCommand, trigger: Trigger): void;
}

const MENTION_ICONS: Record<MentionView['kind'], string> = {
  file: 'file',
  editor: 'go-to-file',
  selection: 'list-selection',
  problems: 'warning',
  openEditors: 'files',
  symbol: 'symbol-method',
};

/**
 * Completion in the message input: `@` opens the mention picker (the host lists and ranks; a newer
 * query's answer replaces an older one, a late older one is dropped), `/` at the start opens the
 * commands. ↑/↓ move, Enter or Tab pick, Escape closes (and the same token does not reopen it).
 */
export class ComposerCompletion {
  readonly picker: Picker;
  private trigger: Trigger | undefined;
  private mentions: MentionView[] = [];
  private commands: SlashCommand[] = [];
  private seq = 0;
  /** The token Escape closed the picker on (kept closed until the caret leaves it). */
  private dismissed: { type: Trigger['type']; start: number } | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly host: CompletionHost,
  ) {
    this.picker = new Picker(input, (i) => this.pick(i));
    input.addEventListener('input', () => this.update());
    input.addEventListener('click', () => this.update());
    input.addEventListener('keyup', (e) => {
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End') this.update();
    });
    input.addEventListener('blur', () => this.close());
  }

  get isOpen(): boolean {
    return this.picker.isOpen;
  }

  /** Handles a key in the input while the picker is open; true when it was the picker's. */
  handleKey(e: KeyboardEvent): boolean {
    if (!this.picker.isOpen || e.isComposing) return false;
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        if (e.altKey || e.ctrlKey || e.metaKey) return false;
        e.preventDefault();
        this.picker.move(e.key === 'ArrowDown' ? 1 : -1);
        return true;
      case 'Enter':
      case 'Tab':
        if (e.shiftKey || e.altKey || e.ctrlKey || e.metaKey || this.picker.size === 0) return false;
        e.preventDefault();
        this.pick(this.picker.activeIndex);
        return true;
      case 'Escape':
        // Taken here: an Escape that closes the picker does not also stop a streaming reply.
        e.preventDefault();
        e.stopPropagation();
        if (this.trigger) this.dismissed = { type: this.trigger.type, start: this.trigger.start };
        this.close();
        return true;
      default:
        return false;
    }
  }

  close(): void {
    this.seq++;
    this.trigger = undefined;
    this.picker.close();
  }

  /** Looks at the text before the caret and opens, updates or closes the picker. */
  update(): void {
    const caret = this.input.selectionStart ?? 0;
    const found = this.input.selectionStart === this.input.selectionEnd ? triggerAt(this.input.value, caret) : undefined;
    if (!found) {
      this.dismissed = undefined;
      this.close();
      return;
    }
    if (this.dismissed && this.dismissed.type === found.type && this.dismissed.start === found.start) return;
    this.dismissed = undefined;
    this.trigger = found;
    if (found.type === 'slash') this.showCommands(found);
    else void this.showMentions(found);
  }

  private showCommands(trigger: Trigger): void {
    this.seq++;
    const matched = matchSlashCommands(trigger.query);
    this.commands = matched.map((m) => m.command);
    if (matched.length === 0) {
      // An unknown command is sent as text.
      this.picker.close();
      return;
    }
    const items: PickerItem[] = matched.map(({ command, matches }) => ({
      kind: 'command',
      label: `/${command.name}`,
      detail: command.description,
      icon: command.icon,
      matches,
    }));
    this.picker.show(items, '', 'Commands');
  }

  private async showMentions(trigger: Trigger): Promise<void> {
    const seq = ++this.seq;
    if (!this.picker.isOpen) this.picker.show([], trigger.query.startsWith('#') ? 'Searching symbols…' : 'Listing files…', 'Attach');
    const result = await this.host.mentions(trigger.query);
    if (seq !== this.seq) return;
    if (!result.ok) {
      this.mentions = [];
      this.picker.show([], result.error, 'Attach');
      return;
    }
    this.mentions = result.value;
    const items: PickerItem[] = result.value.map((m) => ({
      kind: m.kind,
      label: m.label,
      detail: m.detail,
      icon: MENTION_ICONS[m.kind],
      matches: m.matches,
      ...(m.refused ? { refused: m.refused } : {}),
    }));
    const symbols = trigger.query.startsWith('#');
    const note =
      items.length > 0
        ? ''
        : symbols
          ? trigger.query.length > 1
            ? 'No symbol matches (excluded files are not searched).'
            : 'Type a symbol name after @#.'
          : 'No file matches (excluded files are not listed). Type @# to search symbols.';
    this.picker.show(items, note, symbols ? 'Symbols' : 'Files, editors, selection and problems');
  }

  private pick(index: number): void {
    const trigger = this.trigger;
    if (!trigger) return;
    if (trigger.type === 'slash') {
      const command = this.commands[index];
      this.close();
      if (command) this.host.pickSlash(command, trigger);
      return;
    }
    const mention = this.mentions[index];
    this.close();
    if (mention) this.host.pickMention(mention, trigger);
  }
}
