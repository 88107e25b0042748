/**
 * What each command does. Commands that name an item (pin, unpin, remove)
 * take the item from their argument — a Context Layers tree node or a chip id — or ask with a quick
 * pick when run from the Command Palette.
 */
import * as vscode from 'vscode';
import type { ChatSession } from '../../services/chatSession';
import type { LedgerTreeNode } from '../../services/ledgerTree';
import { lastRequestDocument } from './lastRequestDocument';
import { contentOf } from '../views/treeSource';
import type { CommandHandler } from './commands';
import type { CommandId } from './commandIds';
import { KEYED_PROVIDERS, PROVIDER_CATALOG, isKeyedProvider, type KeyedProvider } from '../../common/providerCatalog';
import type { ProviderResolver } from '../providers/providerResolver';
import type { ModelPicker } from '../providers/modelPicker';
import type { RequestDocuments } from './requestDocument';
import type { StrataController } from '../strataController';
import type { HostWorkspace } from '../context/hostWorkspace';
import type { ChangeApplier } from '../apply/changeApplier';
import { TimeSlice } from '../../services/timeSlice';
import { runStepsSliced, utf8DecodeSteps } from '../../services/textSteps';
import type { ChatViewProvider } from '../panel/chatViewProvider';
import { entryPointHandlers } from '../context/editorEntryPoints';
import { exportChat } from './exportChat';
import { CommandConsent } from './commandConsent';
import { fileCommandQuestion } from './consentRules';
import type { PendingFeedback } from '../context/pendingFeedback';
import type { CodeIntelCommands } from '../context/codeIntelCommands';
import type { ChatEditorPanel } from '../panel/chatEditorPanel';
import type { AddContext } from '../context/addContext';

export interface HandlerDeps {
  controller: StrataController;
  session: ChatSession;
  resolver: ProviderResolver;
  documents: RequestDocuments;
  workspace: HostWorkspace;
  changes: ChangeApplier;
  view: ChatViewProvider;
  pending: PendingFeedback;
  codeIntel: CodeIntelCommands;
  chatEditor: ChatEditorPanel;
  consent: CommandConsent;
  picker: ModelPicker;
  addContext: AddContext;
}

/** Asks which provider (unless given) and its key; true when a key was stored. */
export async function askApiKey(d: Pick<HandlerDeps, 'resolver' | 'controller'>, given?: KeyedProvider): Promise<boolean> {
  let provider = given;
  if (!provider) {
    const pick = await vscode.window.showQuickPick(
      KEYED_PROVIDERS.map((p) => ({
        label: PROVIDER_CATALOG[p].name,
        description: p === 'openai' ? vscode.l10n.t('also OpenAI-compatible servers') : undefined,
        provider: p,
      })),
      { placeHolder: vscode.l10n.t('Which provider is the key for?') },
    );
    provider = pick?.provider;
  }
  if (!provider) return false;
  const key = await vscode.window.showInputBox({
    password: true,
    ignoreFocusOut: true,
    prompt: vscode.l10n.t(
      "API key for {0}. Stored in VS Code's secret storage, never in settings. Leave empty to delete the stored key.",
      PROVIDER_CATALOG[provider].name,
    ),
  });
  if (key === undefined) return false;
  await d.resolver.setApiKey(provider, key.trim() || undefined);
  await d.controller.refreshProvider();
  void vscode.window.showInformationMessage(
    key.trim() ? vscode.l10n.t('Strata: the key is stored.') : vscode.l10n.t('Strata: the stored key was deleted.'),
  );
  return key.trim() !== '';
}

/** A tree node or anything else that names an attached item. */
function refOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && 'ref' in arg && typeof (arg as { ref: unknown }).ref === 'string')
    return (arg as { ref: string }).ref;
  return undefined;
}

async function pickItem(
  controller: StrataController,
  placeHolder: string,
  filter: (i: { pinned: boolean }) => boolean,
): Promise<string | undefined> {
  const items = controller.attachedItems().filter(filter);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Strata: nothing is attached that this applies to.'));
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    items.map((i) => ({ label: i.label, description: `${i.detail}${i.pinned ? ' · pinned' : ''}`, ref: i.ref })),
    { placeHolder },
  );
  return pick?.ref;
}

export function commandHandlers(d: HandlerDeps): Record<CommandId, CommandHandler> {
  const { controller, session } = d;
  return {
    ...entryPointHandlers({ controller, view: d.view }),
    'strata.openChatInEditor': () => d.chatEditor.open(),
    'strata.newChat': () => controller.newChat(),
    ...d.addContext.handlers(),
    'strata.acceptChange': (arg?: unknown) => d.changes.accept(arg),
    'strata.rejectChange': (arg?: unknown) => d.changes.reject(arg),
    'strata.acceptHunk': (arg?: unknown, index?: unknown) => d.changes.acceptHunk(arg, index),
    'strata.rejectHunk': (arg?: unknown, index?: unknown) => d.changes.rejectHunk(arg, index),
    'strata.stopReply': () => controller.stop(),
    'strata.attachActiveFile': (arg?: unknown) =>
      arg instanceof vscode.Uri ? controller.attachUris([arg]) : controller.attach('activeFile'),
    'strata.attachSelection': () => controller.attach('selection'),
    'strata.attachOpenEditors': () => controller.attach('openEditors'),
    'strata.attachSelectionWithDefinitions': (arg?: unknown) =>
      typeof arg === 'string' ? d.codeIntel.chipWithDefinitions(arg) : d.codeIntel.selectionWithDefinitions(),
    'strata.attachFileWithImports': (arg?: unknown, all?: unknown) => d.codeIntel.fileWithImports(arg, all),
    'strata.pin': async (arg?: unknown) => {
      const ref = refOf(arg) ?? (await pickItem(controller, vscode.l10n.t('Pin an attachment (never pruned)'), (i) => !i.pinned));
      return ref ? d.pending.setPinned(ref, true) : false;
    },
    'strata.unpin': async (arg?: unknown) => {
      const ref = refOf(arg) ?? (await pickItem(controller, vscode.l10n.t('Unpin an attachment'), (i) => i.pinned));
      return ref ? d.pending.setPinned(ref, false) : false;
    },
    'strata.removeAttachment': async (arg?: unknown) => {
      const ref = refOf(arg) ?? (await pickItem(controller, vscode.l10n.t('Remove an attachment from this chat'), () => true));
      return ref ? d.pending.remove(ref) : false;
    },
    // Argument: a tree row (its `ref`), a ref, or `{ bannerId }` from the panel's Undo.
    'strata.undoPending': (arg?: unknown) => {
      const bannerId = arg && typeof arg === 'object' && 'bannerId' in arg ? String((arg as { bannerId: unknown }).bannerId) : undefined;
      return d.pending.undo(bannerId !== undefined ? { bannerId } : { ref: refOf(arg) });
    },
    'strata.compactNow': () =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Strata: compacting the chat') },
        async () => {
          const before = session.meter();
          const after = session.compactNow();
          controller.refreshMeter();
          controller.notifyChanged();
          void vscode.window.showInformationMessage(
            after.used >= before.used
              ? vscode.l10n.t('Strata: nothing to compact now ({0} tokens).', before.used)
              : vscode.l10n.t(
                  'Strata: the next request will be compacted to {0} tokens (from {1}), {2}% of the budget.',
                  after.used,
                  before.used,
                  Math.round((after.used / Math.max(1, after.budget)) * 100),
                ),
          );
          return { before: before.used, after: after.used };
        },
      ),
    'strata.showChatCost': async () => {
      const title = session.chats().find((c) => c.id === session.activeChatId)?.title ?? 'New chat';
      await d.documents.openRendered('Chat Cost.md', session.chatCosts.report(title, session.turnMetas()));
    },
    'strata.showLastRequest': async () => {
      const last = controller.lastSent();
      if (!last) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Strata: no request of this chat was sent from this window yet. Send a message first.'),
        );
        return undefined;
      }
      return d.documents.open(`strata-request-turn-${last.turn}.jsonc`, lastRequestDocument(last), 'jsonc');
    },
    'strata.selectModel': () => d.picker.run(),
    'strata.selectLocalServer': () => d.picker.runLocalServer(),
    // Argument (for scripts and keybindings): a provider id. The key itself is always typed into the
    // prompt: anything that can run a command could otherwise replace the user's key with its own.
    'strata.setApiKey': (arg?: unknown) => askApiKey(d, isKeyedProvider(arg) ? arg : undefined),
    'strata.exportChat': (arg?: unknown, options?: unknown) =>
      exportChat({ session, resolver: d.resolver, consent: d.consent }, arg, options),
    'strata.importChat': async (arg?: unknown) => {
      // An argument picks the file; the user still says yes (commandConsent.ts).
      if (!(await d.consent.confirm(fileCommandQuestion('import', CommandConsent.fileArgument(arg))))) return undefined;
      const source =
        arg instanceof vscode.Uri
          ? arg
          : (await vscode.window.showOpenDialog({ canSelectMany: false, filters: { Markdown: ['md'] } }))?.[0];
      if (!source) return undefined;
      const slice = new TimeSlice();
      // An export of a long chat is megabytes: decoded in pieces, the host answering in between.
      const text = await runStepsSliced(utf8DecodeSteps(await vscode.workspace.fs.readFile(source)), slice);
      const result = await session.store.importMarkdownSliced(text, { isAllowedPath: (p) => d.workspace.isAllowedPathSync(p) }, slice);
      await controller.switchChat(result.chatId);
      const dropped = result.dropped.length;
      const bare = result.warnings.some((w) => w.includes('exported without its attached files'));
      void vscode.window.showInformationMessage(
        (dropped > 0
          ? vscode.l10n.t('Strata: imported {0} turns; {1} attachments outside this workspace were left out.', result.turns, dropped)
          : vscode.l10n.t('Strata: imported {0} turns.', result.turns)) +
          (bare ? ` ${vscode.l10n.t('It was exported without its attached files: the chat continues without them.')}` : ''),
      );
      return result;
    },
    'strata.openSource': async (arg?: unknown) => {
      const node = arg as LedgerTreeNode | undefined;
      const source = node?.source;
      if (!source) throw new Error('This item has no source in the workspace.');
      const uri = d.workspace.uriOf(source.path);
      if (!uri) throw new Error(`${source.path} is not in this window's workspace (or no longer open).`);
      const doc = await vscode.workspace.openTextDocument(uri);
      const editor = await vscode.window.showTextDocument(doc, { preview: true });
      if (source.startLine !== undefined) {
        const start = new vscode.Position(Math.min(source.startLine - 1, doc.lineCount - 1), 0);
        const endLine = Math.min((source.endLine ?? source.startLine) - 1, doc.lineCount - 1);
        const range = new vscode.Range(start, doc.lineAt(endLine).range.end);
        editor.selection = new vscode.Selection(range.start, range.end);
        editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
      return uri;
    },
    'strata.showContent': async (arg?: unknown) => {
      const node = arg as LedgerTreeNode | undefined;
      if (!node) throw new Error('Choose an item in the Context Layers view.');
      const content = contentOf(controller, session, node);
      if (!content) throw new Error(`The content of ${node.name ?? node.label} is not available.`);
      const name = `${content.title.replace(/[^A-Za-z0-9._@ -]+/g, '_').slice(0, 80)}.txt`;
      return d.documents.open(name, content.text, 'plaintext');
    },
    // Argument: a chat id (or `{ chatId }`). The confirmation is always asked: skipping it is for
    // the panel's own delete, which has its confirmation in the webview.
    'strata.deleteChat': async (arg?: unknown) => {
      let chatId = typeof arg === 'string' ? arg : undefined;
      if (arg && typeof arg === 'object' && 'chatId' in arg) chatId = String((arg as { chatId: unknown }).chatId);
      if (!chatId) {
        const chats = session.chats();
        const pick = await vscode.window.showQuickPick(
          chats.map((c) => ({
            label: c.title,
            description: `${c.turns} turns${c.id === session.activeChatId ? ' · open' : ''}`,
            id: c.id,
          })),
          { placeHolder: vscode.l10n.t('Delete which chat?') },
        );
        chatId = pick?.id;
      }
      if (!chatId) return false;
      return controller.deleteChat(chatId, true);
    },
    'strata.forgetTrustedEndpoints': async () => {
      const count = await d.resolver.endpoints.forgetAll();
      await controller.refreshProvider();
      void vscode.window.showInformationMessage(
        count > 0
          ? vscode.l10n.t(
              "Strata: forgot {0} confirmed server(s); a workspace's server is asked about again before anything goes there.",
              count,
            )
          : vscode.l10n.t('Strata: no server was confirmed.'),
      );
      return count;
    },
  };
}
