import * as vscode from 'vscode';
import type { ChipView, HostToWebviewMessage, NoticeView } from './protocol/messages';
import type { PanelComposerActions } from './host/panel/panelRequests';
import { ChatSession, type SessionSettings } from './services/chatSession';
import { getTokenizer } from './services/tokenizer';
import type { Instruction } from './engine/engine';
import { ChangeApplier, saveBlockState } from './host/apply/changeApplier';
import { ChatViewProvider } from './host/panel/chatViewProvider';
import { ChatEditorPanel } from './host/panel/chatEditorPanel';
import type { ChatSurface, ChatSurfaceKind } from './host/panel/chatSurface';
import { openCitation, resolveCitationPaths } from './host/panel/citationLinks';
import { askApiKey, commandHandlers } from './host/commands/commandHandlers';
import { ModelPicker } from './host/providers/modelPicker';
import { offerFirstRunSetup } from './host/firstRun';
import { registerAskStrata } from './host/context/editorEntryPoints';
import { PendingFeedback } from './host/context/pendingFeedback';
import { inContextPaths, inContextView } from './services/session/inContext';
import { withPending } from './services/pendingTree';
import { registerCommands } from './host/commands/commands';
import { CommandConsent } from './host/commands/commandConsent';
import {
  onDidChangeSettings,
  readSetting,
  restrictedModeNotice,
  setWorkspaceSettingsScan,
  simulateRestrictedMode,
  workspaceTrusted,
} from './host/settings/config';
import { watchWorkspaceSettingsFiles } from './host/settings/workspaceSettingsFiles';
import { EndpointTrust } from './host/providers/endpointTrust';
import { RESTRICTED_KEYS } from './host/settings/settingsPolicy';
import { HostWorkspace } from './host/context/hostWorkspace';
import { LatestOnly } from './common/latestOnly';
import { RefusalActions } from './host/context/refusalActions';
import { CodeIntelCommands } from './host/context/codeIntelCommands';
import { LayersTreeProvider } from './host/views/layersTreeProvider';
import { ActiveEditorSuggestion } from './host/context/activeEditorSuggestion';
import { MentionSource } from './host/context/mentionSource';
import { AddContext } from './host/context/addContext';
import { editorKeepWarm, pricingSettings, withActivity } from './host/providers/keepWarmWiring';
import { ProviderResolver } from './host/providers/providerResolver';
import { RequestDocuments } from './host/commands/requestDocument';
import { MeterStatusBar } from './host/views/statusBar';
import { StrataController } from './host/strataController';
import { WorkspaceStateStore } from './host/panel/stateStorage';
import { hasRequest, treeNodes } from './host/views/treeSource';
import { PRODUCT_PROMPT } from './services/productPrompt';
import { parseModelOverrides } from './services/modelOverrides';
import { watchChatStore } from './services/store/storeWatcher';

/** What `activate` returns; the integration suite drives the panel through it. */
export interface StrataApi {
  /** Resolves once the chat webview has loaded its bundle, said `ready` and received `init`. */
  whenChatReady(): Promise<void>;
  /** Test hooks: the same objects the panel and the commands use. */
  readonly testing: {
    readonly session: ChatSession;
    readonly controller: StrataController;
    readonly changes: ChangeApplier;
    /** The yes that export and import ask for even when run with a file (commandConsent.ts). */
    readonly consent: CommandConsent;
    readonly workspace: HostWorkspace;
    readonly resolver: ProviderResolver;
    /** The model picker ("Strata: Select Model"); its `ui` answers in the user's place in tests. */
    readonly picker: ModelPicker;
    readonly tree: LayersTreeProvider;
    readonly mentions: MentionSource;
    /** Refused attachments and their actions; its `ui` answers the notifications in the user's place in tests. */
    readonly refusals: RefusalActions;
    readonly suggestion: ActiveEditorSuggestion;
    /** Delivers a raw message as if a webview had posted it (validation included): the side view's, or `from`'s. */
    receive(raw: unknown, from?: ChatSurface): Promise<void>;
    /** The chat's open surface of that kind: the side view, or the editor tab. */
    chatSurface(kind: ChatSurfaceKind): ChatSurface | undefined;
    onDidPost(listener: (m: HostToWebviewMessage) => void): vscode.Disposable;
    onDidReject(listener: (reason: string) => void): vscode.Disposable;
    readonly activationMs: number;
    /** Reads the settings as in Restricted Mode (the harness opens its workspace trusted), or as the editor says. */
    simulateRestrictedMode(restricted: boolean | undefined): Promise<void>;
  };
}

/** User and project instructions (L1 overlays), read after activation and when they change. */
let instructions: Instruction[] = [];

/** The user's instructions, then (in a trusted workspace) each folder's instructions files. */
async function readInstructions(workspace: HostWorkspace): Promise<Instruction[]> {
  const list: Instruction[] = [];
  const own = readSetting('instructions').trim();
  if (own) list.push({ source: 'settings', text: own });
  if (!workspaceTrusted()) return list;
  const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const file of readSetting('instructionsFiles')) {
      const path = multi ? `${folder.name}/${file}` : file;
      const r = await workspace.resolve({ kind: 'file', path });
      if (r.ok && r.input.content.trim().length > 0) list.push({ source: path, text: r.input.content });
    }
  }
  return list;
}

function settings(): SessionSettings {
  return {
    layout: readSetting('layout'),
    policy: readSetting('context.changedFiles'),
    thresholds: {
      warnPercent: readSetting('budget.warnPercent'),
      compactPercent: readSetting('budget.compactPercent'),
      targetPercent: readSetting('budget.targetPercent'),
    },
    reservedOutputTokens: readSetting('budget.reservedOutputTokens'),
    models: parseModelOverrides(readSetting('models')).overrides,
    requestTimeoutMs: readSetting('requestTimeoutSeconds') * 1000,
    tools: {
      enabled: readSetting('tools.enabled'),
      maxSteps: readSetting('tools.maxSteps'),
      maxResultTokens: readSetting('tools.maxResultTokens'),
      maxTurnTokens: readSetting('tools.maxTurnTokens'),
    },
    system: PRODUCT_PROMPT,
    instructions,
    pricing: pricingSettings(),
  };
}

/** Composition root: build the host objects and register views and commands. Nothing else. */
export function activate(context: vscode.ExtensionContext): StrataApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Strata', { log: true });
  context.subscriptions.push(log);

  const noFolder = !context.storageUri;
  const storage = context.storageUri ?? vscode.Uri.joinPath(context.globalStorageUri, 'no-folder');
  const workspace = new HostWorkspace(
    () => ({
      excludes: readSetting('context.exclude'),
      maxFileBytes: readSetting('context.maxFileBytes'),
    }),
    (line) => log.info(line),
  );
  const memento = new WorkspaceStateStore(context.workspaceState);
  // The chat that was open when the window closed (or reloaded) opens again.
  const session = ChatSession.open(
    { storeRoot: storage.fsPath, port: workspace, tokenizer: getTokenizer, settings, log: (line) => log.info(line) },
    memento.get('activeChatId'),
  );
  const resolver = new ProviderResolver(context.secrets, new EndpointTrust(context.globalState));
  const chatView = new ChatViewProvider(context.extensionUri, String(context.extension.packageJSON.version), log);
  const chatEditor = new ChatEditorPanel(chatView, context.extensionUri);
  const keepWarm = editorKeepWarm({ session, view: chatView, controller: () => controller, log });
  resolver.watch = (provider, label) => keepWarm.watch(provider, label);
  const picker = new ModelPicker({
    resolver,
    current: () => controller.currentModel(),
    askKey: (provider) => askApiKey({ resolver, controller }, provider),
    apply: async (option) => {
      await ProviderResolver.choose(option);
      await controller.refreshProvider();
    },
  });
  const statusBar = new MeterStatusBar();
  const documents = new RequestDocuments();

  const notices = (): NoticeView[] => {
    const out: NoticeView[] = [];
    if (!workspaceTrusted()) out.push({ id: 'restricted', message: restrictedModeNotice() });
    if (noFolder)
      out.push({
        id: 'no-folder',
        message:
          "No folder is open: chats are kept in Strata's global storage, shared by windows without a folder. Open a folder to keep its chats with it.",
      });
    return out;
  };
  const changes = changeApplier(workspace, session, chatView, log);
  const codeIntel: CodeIntelCommands = new CodeIntelCommands(session, (): StrataController => controller);
  const files = {
    attachDefinitions: (chipId: string) => codeIntel.chipWithDefinitions(chipId),
    applyCode: (block: { code: string; info: string; lineAbove: string; blockId?: string }) => changes.apply(block),
    undoApply: (blockId: string) => changes.undo(blockId),
    resolveCitations: (paths: readonly string[]) => resolveCitationPaths(workspace, paths),
    openCitation: async (citation: Parameters<typeof openCitation>[1]) => void (await openCitation(workspace, citation)),
  };
  // The composer's `@` picker and suggestion chip attach through the controller's attach path.
  const attachSpecs = (specs: Parameters<StrataController['attachSpecs']>[0]): Promise<ChipView[]> => controller.attachSpecs(specs);
  const mentions = MentionSource.forWorkspace(workspace, attachSpecs);
  const composer: PanelComposerActions = {
    mentions: (query) => mentions.list(query),
    attachMention: (ref) => mentions.attach(ref),
    // A chip's × is Remove, as in the tree: pending, with Undo (`pending` is built with the controller).
    removeChip: (chipId) => pending.remove(chipId),
    restoreChip: (chipId) => pending.undo({ ref: chipId }),
    inContextItem: async (ref, action) =>
      action === 'undo' ? pending.undo({ ref }) : action === 'remove' ? pending.remove(ref) : pending.setPinned(ref, action === 'pin'),
    dismissRemovedChip: (chipId) => pending.dismiss(chipId),
  };
  const refusals = new RefusalActions({ session, workspace, view: chatView, host: () => controller, log });
  const controller: StrataController = new StrataController({
    session,
    resolver,
    view: chatView,
    statusBar,
    log,
    notices,
    files,
    composer,
    refusals,
  });
  chatView.setHandler(withActivity(controller, keepWarm));
  const suggestion = new ActiveEditorSuggestion({
    workspace,
    post: (s) => chatView.post({ type: 'suggestion', suggestion: s }),
    chips: () => session.chips(),
    inContext: () =>
      inContextPaths(inContextView(session.meterIfReady() ? session.predictedEnvelope()?.ledger : undefined, session.chatItems())),
    attachSpecs,
    // Its own chip, replaced as the editor moves on: gone at once, no Undo to offer.
    removeChip: (chipId) => void controller.remove(chipId),
    turnCount: () => session.turnMetas().length,
    onDidChangeChips: controller.onDidChange,
    onDidPanelLoad: chatView.onDidBecomeReady,
  });
  const pending = new PendingFeedback(controller, session);
  const addContext = new AddContext({ workspace, mentions, session, controller, view: chatView });
  const tree = new LayersTreeProvider(
    () => withPending(treeNodes(controller, session, suggestion.suggestedLabel()), pending.items()),
    () => hasRequest(controller, session),
  );
  suggestion.onDidChange(() => tree.refresh());
  // The first `@` is answered at once: the workspace is listed when the panel loads, after it painted.
  context.subscriptions.push(chatView.onDidBecomeReady(() => setTimeout(() => mentions.prefetch(), 1000)));
  controller.onDidChange(() => {
    tree.refresh();
    if (memento.get('activeChatId') !== session.activeChatId) void memento.set('activeChatId', session.activeChatId);
  });

  const instructionLoads = new LatestOnly();
  const loadInstructions = async (): Promise<void> => {
    const read = await instructionLoads.run(() => readInstructions(workspace));
    if (!read) return;
    instructions = read.value;
    const err = session.settingsChanged();
    if (err) controller.showBanner('error', err, ['openSettings']);
    controller.refreshMeter();
  };

  const consent = new CommandConsent();
  context.subscriptions.push(
    chatView,
    chatEditor,
    changes,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chatView, { webviewOptions: { retainContextWhenHidden: false } }),
    statusBar,
    documents,
    controller,
    suggestion,
    tree,
    keepWarm,
    registerCommands(
      commandHandlers({
        controller,
        session,
        resolver,
        documents,
        workspace,
        changes,
        view: chatView,
        chatEditor,
        pending,
        codeIntel,
        consent,
        picker,
        addContext,
      }),
      log,
    ),
    registerAskStrata(),
    onDidChangeSettings((keys) => {
      if (keys.some((k) => ['provider', 'model', 'baseUrl', 'promptCacheKey', 'anthropicCacheTtl', 'ollama.maxContextTokens'].includes(k)))
        void controller.refreshProvider();
      if (keys.some((k) => k === 'instructions' || k === 'instructionsFiles')) void loadInstructions();
      if (keys.some((k) => k.startsWith('budget.') || k.startsWith('tools.') || k === 'layout' || k === 'context.changedFiles')) {
        const err = session.settingsChanged();
        if (err) controller.showBanner('error', err, ['openSettings']);
        controller.refreshMeter();
      }
      if (keys.includes('models')) {
        const { problems } = parseModelOverrides(readSetting('models'));
        if (problems.length > 0) controller.showBanner('error', problems.join(' '), ['openSettings']);
        session.settingsChanged();
        controller.refreshMeter();
        void controller.refreshPanel();
      }
      if (keys.some((k) => k === 'context.exclude' || k === 'context.maxFileBytes')) workspace.invalidate();
      if (keys.some((k) => k === 'prices' || k === 'cache.lifetimeSeconds' || k === 'anthropicCacheTtl')) void controller.refreshPanel();
      if (!workspaceTrusted() && keys.some((k) => RESTRICTED_KEYS.includes(k))) void controller.refreshPanel();
    }),
    vscode.lm.onDidChangeChatModels(() => void controller.refreshProvider()),
    context.secrets.onDidChange(() => void controller.refreshProvider()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void loadInstructions();
      void controller.refreshPanel();
    }),
  );
  const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, false, false);
  const filesCameOrWent = (u: vscode.Uri): void => {
    workspace.invalidate(u);
    mentions.invalidate();
  };
  context.subscriptions.push(
    watcher,
    watcher.onDidChange((u) => workspace.invalidate(u)),
    watcher.onDidDelete(filesCameOrWent),
    watcher.onDidCreate(filesCameOrWent),
  );

  // With no model at all (a fork's editor offers none), one notification leads to the picker, once.
  setTimeout(() => void offerFirstRunSetup(context.globalState, controller), 2000);
  // Everything that reads files or loads the tokenizer runs after activation returns.
  setTimeout(() => void loadInstructions(), 0);
  setTimeout(() => watchSettingsFiles(context, controller), 0);
  watchOtherWindows(context, session, controller, log);

  const activationMs = performance.now() - started;
  log.info(`activated in ${activationMs.toFixed(1)} ms (storage: ${noFolder ? 'global, no folder open' : 'workspace'})`);

  return {
    whenChatReady: () => chatView.whenReady(),
    testing: {
      session,
      controller,
      changes,
      consent,
      workspace,
      resolver,
      picker,
      tree,
      mentions,
      refusals,
      suggestion,
      receive: (raw, from) => chatView.receive(raw, from),
      chatSurface: (kind) => chatView.surface(kind),
      onDidPost: (l) => chatView.onDidPost(l),
      onDidReject: (l) => chatView.onDidReject(l),
      activationMs,
      simulateRestrictedMode: async (restricted) => {
        simulateRestrictedMode(restricted);
        workspace.invalidate();
        await loadInstructions();
        await controller.refreshProvider();
        await controller.refreshPanel();
      },
    },
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}

/** The workspace's settings files, scanned for Strata's keys (Restricted Mode's notice names them). */
/**
 * Apply for the panel's code blocks: the target found among the chat's files; each block's state
 * shown in the panel and saved with its chat, and Undo offered where this window can still undo.
 */
function changeApplier(
  workspace: HostWorkspace,
  session: ChatSession,
  chatView: ChatViewProvider,
  log: vscode.LogOutputChannel,
): ChangeApplier {
  const changes = new ChangeApplier({
    workspace,
    // The chips (next message) first, then what the chat holds, newest first; selections by their file.
    attachedPaths: () =>
      [
        ...session.chips().map((c) => c.label),
        ...session
          .chatItems()
          .filter((i) => i.kind === 'file' || i.kind === 'selection')
          .map((i) => i.label)
          .reverse(),
      ]
        .filter((label) => !label.startsWith('untitled:'))
        .map((label) => label.replace(/:L\d+(?:-\d+)?$/, '')),
    blockState: (state) => {
      chatView.post({ type: 'applyState', blockId: state.blockId, state: state.state, accepted: state.accepted, total: state.total });
      saveBlockState(
        state,
        (chatId, turn, mark) => session.blocks.record(chatId, turn, mark),
        (line) => log.warn(line),
      );
    },
  });
  session.blocks.canUndo = (chatId, turn, block) => changes.canUndo(`${chatId}/${turn}:assistant/${block}`);
  return changes;
}

function watchSettingsFiles(context: vscode.ExtensionContext, controller: StrataController): void {
  context.subscriptions.push(
    watchWorkspaceSettingsFiles((scan) => {
      setWorkspaceSettingsScan(scan);
      if (!workspaceTrusted()) void controller.refreshPanel();
    }),
  );
}

/** Another window of this folder saving to the same chats: the panel follows (storeWatcher.ts). */
function watchOtherWindows(
  context: vscode.ExtensionContext,
  session: ChatSession,
  controller: StrataController,
  log: { warn(line: string): void },
): void {
  const storeWatch = watchChatStore(session.store.root, () => void controller.storeChanged(), { log: (line) => log.warn(line) });
  context.subscriptions.push({ dispose: () => storeWatch.dispose() });
}
