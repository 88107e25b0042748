/**
 * Every command Strata contributes. Activation registers each of them, and the manifest test checks this list equals `contributes.commands`.
 * No vscode import: unit tests load this file in plain Node.
 */
export const COMMAND_IDS = [
  'strata.newChat',
  'strata.attachActiveFile',
  'strata.attachSelection',
  'strata.attachOpenEditors',
  'strata.attachSelectionWithDefinitions',
  'strata.attachFileWithImports',
  'strata.pin',
  'strata.unpin',
  'strata.removeAttachment',
  'strata.compactNow',
  'strata.showLastRequest',
  'strata.showChatCost',
  'strata.selectModel',
  // The model picker's "Local server…" on its own (the walkthrough's step).
  'strata.selectLocalServer',
  'strata.setApiKey',
  'strata.exportChat',
  'strata.importChat',
  'strata.deleteChat',
  'strata.forgetTrustedEndpoints',
  // Accept or Reject the change a code block's Apply proposed (also on the diff's title bar).
  'strata.acceptChange',
  'strata.rejectChange',
  // One change of a proposal at a time: the one the diff's cursor is on (Ctrl+Enter / Ctrl+Backspace there).
  'strata.acceptHunk',
  'strata.rejectHunk',
  'strata.stopReply',
  // Actions of a Context Layers tree item.
  'strata.openSource',
  'strata.showContent',
  // Editor entry points: the context menus' items, the code actions' command, focus the input.
  'strata.addSelectionToStrata',
  'strata.attachFileToStrata',
  'strata.askStrata',
  'strata.focusInput',
  // Takes back a pending pin, unpin or remove (a tree row's Undo, the panel banner's Undo).
  'strata.undoPending',
  // The chat in an editor tab, beside (or instead of) the side bar's view.
  'strata.openChatInEditor',
  // Add Context…: one quick pick of files, symbols, a folder, Git changes (the composer's button too).
  'strata.addContext',
  // Explorer: a folder's files, bounded by the budget.
  'strata.attachFolderToStrata',
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];

export const VIEW_IDS = {
  container: 'strata',
  chat: 'strata.chat',
  layers: 'strata.layers',
  /** The chat as an editor tab (a webview panel's type; package.json activates on it). */
  chatEditor: 'strata.chatEditor',
} as const;
