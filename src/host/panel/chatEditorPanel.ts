import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { ChatSurface } from './chatSurface';
import { chatWebviewOptions } from './chatSurface';
import type { ChatViewProvider } from './chatViewProvider';
import { VIEW_IDS } from '../commands/commandIds';

/** The editor tab's webview type; package.json activates Strata on it so a tab left open comes back. */
export const CHAT_EDITOR_VIEW_TYPE = VIEW_IDS.chatEditor;
export const CHAT_EDITOR_TITLE = 'Strata Chat';

/**
 * The chat as an editor tab, beside the side bar's view: one tab at a time (the command reveals it
 * when it is open), restored after a window reload by the panel serializer, and showing the same
 * chat through the same surfaces as the view. Closing the tab closes only its surface.
 */
export class ChatEditorPanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(
    private readonly chat: ChatViewProvider,
    private readonly extensionUri: vscode.Uri,
  ) {
    super();
    this._register(
      vscode.window.registerWebviewPanelSerializer(CHAT_EDITOR_VIEW_TYPE, {
        // The webview's own state is not needed: `init` brings the chat when the page says `ready`.
        deserializeWebviewPanel: async (panel) => {
          if (this.panel) panel.dispose();
          else this.adopt(panel);
        },
      }),
    );
    this._register({ dispose: () => this.panel?.dispose() });
  }

  /** The open tab's surface (tests, Focus Chat Input). */
  get surface(): ChatSurface | undefined {
    return this.chat.surface('editor');
  }

  /** Opens the chat in an editor tab of the active group, or reveals the one already open. */
  open(): void {
    if (this.panel) {
      this.panel.reveal(undefined, false);
      this.surface?.used();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      CHAT_EDITOR_VIEW_TYPE,
      CHAT_EDITOR_TITLE,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      // Hidden tabs drop their page, as the view does: `init` rebuilds it when shown again.
      { ...chatWebviewOptions(this.extensionUri), retainContextWhenHidden: false, enableFindWidget: true },
    );
    this.adopt(panel);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.title = CHAT_EDITOR_TITLE;
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
    this.chat.attach('editor', {
      webview: panel.webview,
      visible: () => panel.visible,
      turnedTo: () => panel.active,
      reveal: async () => panel.reveal(undefined, false),
      onDidChangeVisibility: panel.onDidChangeViewState,
      onDidDispose: panel.onDidDispose,
    });
    panel.onDidDispose(() => {
      if (this.panel === panel) this.panel = undefined;
    });
  }
}
