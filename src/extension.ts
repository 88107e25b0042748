import * as vscode from 'vscode';
import { ChatViewProvider } from './host/chatViewProvider';
import { registerCommands } from './host/commands';
import { LayersTreeProvider } from './host/layersTreeProvider';

/** What `activate` returns; the integration suite uses it to wait for the chat webview. */
export interface StrataApi {
  /** Resolves once the chat webview has loaded its bundle and said `ready`. */
  whenChatReady(): Promise<void>;
}

/** Composition root: build the host objects and register views and commands. Nothing else. */
export function activate(context: vscode.ExtensionContext): StrataApi {
  const log = vscode.window.createOutputChannel('Strata', { log: true });
  context.subscriptions.push(log);

  const chatView = new ChatViewProvider(context.extensionUri, String(context.extension.packageJSON.version), log);
  context.subscriptions.push(
    chatView,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chatView),
    new LayersTreeProvider(() => []),
    registerCommands({}),
  );

  return { whenChatReady: () => chatView.whenReady() };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
