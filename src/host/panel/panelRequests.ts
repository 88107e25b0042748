import * as vscode from 'vscode';
import type { Citation } from '../../protocol/citations';
import type { AttachWhat, BannerAction, ChipView, HostToWebviewMessage, ModelOption } from '../../protocol/messages';
import type { MentionRef, MentionResult, MentionView, SlashHostCommand } from '../../protocol/mentions';
import type { InContextAction, ResponseOf, WebviewRequestKind, WebviewRequestOf } from '../../protocol/requests';
import type { ChatSession } from '../../services/chatSession';
import { ChatSearch } from '../../services/store/chatSearch';
import { ProviderResolver } from '../providers/providerResolver';

/** Turns the panel gets when a chat opens (two messages each); older ones load on scroll. */
export const INITIAL_TURNS = 25;

/** One handler per request kind, each answering with the value the protocol declares for it. */
export type PanelRequestHandlers = { [K in WebviewRequestKind]: (request: WebviewRequestOf<K>) => Promise<ResponseOf<K>> };

/** What the panel asks of the workspace's files: Apply a code block, resolve and open citations, find definitions. */
export interface PanelFileActions {
  applyCode(block: { code: string; info: string; lineAbove: string; blockId?: string }): Promise<void>;
  /** Undo of a code block's applied change. */
  undoApply(blockId: string): Promise<void>;
  resolveCitations(paths: readonly string[]): Promise<string[]>;
  openCitation(citation: Citation): Promise<void>;
  /** A selection chip again with the definitions it uses (found through the editor's language features). */
  attachDefinitions(chipId: string): Promise<ChipView[]>;
}

/**
 * What the composer asks of the host: the `@` picker's entries and the suggestion chip
 * (mentionSource.ts); a chip's × and its Undo (pendingFeedback.ts, as Remove in the tree).
 */
export interface PanelComposerActions {
  mentions(query: string): Promise<MentionView[]>;
  attachMention(ref: MentionRef): Promise<MentionResult>;
  /** Takes a chip off the next message, kept for Undo; false when there is no such chip. */
  removeChip(chipId: string): boolean;
  /** Undo of `removeChip`; false when the chip is no longer held for it. */
  restoreChip(chipId: string): Promise<boolean>;
  /** Forgets a chip taken off the next message, and its Undo. */
  dismissRemovedChip(chipId: string): boolean;
  /** Pin, Unpin, Remove or Undo on an item of the "In context" row, as the same actions in Context Layers; false when the item is gone. */
  inContextItem(ref: string, action: InContextAction): Promise<boolean>;
}

/** The command each host-run `/` command is (the same as in the Command Palette). */
export const SLASH_COMMAND_IDS: Record<SlashHostCommand, string> = {
  compact: 'strata.compactNow',
  cost: 'strata.showChatCost',
};

/** What the panel's requests act on: the controller's operations and its ways to update the panel. */
export interface PanelActions {
  readonly session: ChatSession;
  readonly files: PanelFileActions;
  readonly composer: PanelComposerActions;
  send(text: string): Promise<void>;
  stop(): void;
  regenerate(): Promise<void>;
  newChat(): Promise<void>;
  switchChat(chatId: string): Promise<void>;
  deleteChat(chatId: string, confirm: boolean): Promise<boolean>;
  attach(what: AttachWhat): Promise<ChipView[]>;
  refreshProvider(): Promise<void>;
  bannerAction(bannerId: string, action: BannerAction): Promise<void>;
  modelOptions(): Promise<ModelOption[]>;
  /** The chat list or the active chat's title changed. */
  chatsChanged(): void;
  /** The composer's chips changed. */
  chipsChanged(): void;
  post(message: HostToWebviewMessage): void;
}

/** The host's answer to each panel request (the webview is UI; these decide). */
export function panelRequestHandlers(a: PanelActions): PanelRequestHandlers {
  const history = new ChatSearch((chatId) => a.session.store.chatPath(chatId));
  return {
    send: async (r) => a.send(r.text),
    stop: async () => a.stop(),
    regenerate: async () => a.regenerate(),
    newChat: async () => a.newChat(),
    switchChat: async (r) => a.switchChat(r.chatId),
    renameChat: async (r) => {
      a.session.renameChat(r.chatId, r.title);
      a.chatsChanged();
    },
    deleteChat: async (r) => a.deleteChat(r.chatId, r.confirm === true),
    searchChats: async (r) => {
      const found = await history.search(r.query, a.session.chats());
      return { hits: found.matches, complete: found.complete };
    },
    attach: async (r) => a.attach(r.what),
    removeChip: async (r) => {
      if (!a.composer.removeChip(r.chipId)) throw new Error('That attachment is no longer there.');
    },
    restoreChip: async (r) => {
      if (!(await a.composer.restoreChip(r.chipId)))
        throw new Error('That attachment can no longer be put back (the message was sent, or it was dismissed).');
    },
    dismissRemovedChip: async (r) => {
      a.composer.dismissRemovedChip(r.chipId);
    },
    attachDefinitions: async (r) => a.files.attachDefinitions(r.chipId),
    pinChip: async (r) => {
      if (!a.session.pinChip(r.chipId, r.pinned)) throw new Error('That attachment is no longer there.');
      a.chipsChanged();
    },
    selectModel: async (r) => {
      if (r.provider && r.model) {
        await ProviderResolver.choose({ provider: r.provider, model: r.model });
        await a.refreshProvider();
        return;
      }
      await vscode.commands.executeCommand('strata.selectModel');
    },
    listModels: async () => a.modelOptions(),
    insertCode: async (r) => insertCode(r.code),
    insertTerminal: async (r) => insertIntoTerminal(r.code),
    applyCode: async (r) => a.files.applyCode({ code: r.code, info: r.info, lineAbove: r.lineAbove, blockId: r.blockId }),
    undoApply: async (r) => a.files.undoApply(r.blockId),
    resolveCitations: async (r) => a.files.resolveCitations(r.paths),
    openCitation: async (r) => a.files.openCitation({ path: r.path, startLine: r.startLine, endLine: r.endLine }),
    copy: async (r) => {
      await vscode.env.clipboard.writeText(r.text);
    },
    bannerAction: async (r) => a.bannerAction(r.bannerId, r.action),
    loadOlder: async (r) => {
      if (r.chatId !== a.session.activeChatId) return;
      const { messages, hasOlder } = a.session.messages({ beforeTurn: r.beforeTurn, last: INITIAL_TURNS * 2 });
      a.post({ type: 'olderMessages', chatId: r.chatId, messages, hasOlder });
    },
    mentions: async (r) => a.composer.mentions(r.query),
    attachMention: async (r) => a.composer.attachMention(r.ref),
    addContext: async () => {
      await vscode.commands.executeCommand('strata.addContext');
    },
    slashCommand: async (r) => {
      await vscode.commands.executeCommand(SLASH_COMMAND_IDS[r.name]);
    },
    inContextItem: async (r) => {
      if (!(await a.composer.inContextItem(r.ref, r.action))) throw new Error('That item is no longer in this chat.');
    },
    openSetting: async (r) => {
      await vscode.commands.executeCommand('workbench.action.openSettings', r.setting);
    },
  };
}

/**
 * Puts a shell block on the terminal's command line without running it. One line goes as text
 * without a line break; several go through the terminal's own Paste (bracketed paste where the shell
 * supports it, and the editor's warning before a multi-line paste), the clipboard given back after.
 */
async function insertIntoTerminal(code: string): Promise<void> {
  const lf = code.replace(/\r\n?/g, '\n');
  let end = lf.length;
  while (end > 0 && lf[end - 1] === '\n') end--;
  const text = lf.slice(0, end);
  if (text.trim().length === 0) throw new Error('The block is empty: nothing to insert.');
  const terminal = vscode.window.activeTerminal ?? vscode.window.createTerminal({ name: 'Strata' });
  terminal.show(false);
  if (!text.includes('\n')) {
    terminal.sendText(text, false);
    return;
  }
  const before = await vscode.env.clipboard.readText();
  await vscode.env.clipboard.writeText(text);
  try {
    await vscode.commands.executeCommand('workbench.action.terminal.paste');
  } finally {
    await vscode.env.clipboard.writeText(before);
  }
}

async function insertCode(code: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) throw new Error('Open an editor to insert the code into.');
  const ok = await editor.edit((e) => {
    for (const sel of editor.selections) e.replace(sel, code);
  });
  if (!ok) throw new Error('The editor did not accept the insertion (is it read-only?).');
}
