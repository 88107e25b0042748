import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { HostToWebviewMessage } from '../../protocol/messages';
import { renderWebviewHtml, webviewResourceRoots } from './webviewHtml';

/** Where a chat webview lives: the side bar's view (wherever the user moved it) or an editor tab. */
export type ChatSurfaceKind = 'view' | 'editor';

/** The webview's container as a surface needs it, whichever kind it is. */
export interface SurfaceContainer {
  readonly webview: vscode.Webview;
  /** On screen now. */
  visible(): boolean;
  /** Brings the container to the front (and the keyboard into it). */
  reveal(): Thenable<unknown>;
  /** The user turned to it: the view was shown, the editor tab became the active one. */
  turnedTo(): boolean;
  /** Fires when `visible` or `turnedTo` may have changed. */
  readonly onDidChangeVisibility: vscode.Event<unknown>;
  readonly onDidDispose: vscode.Event<void>;
}

/** The strict options of every chat webview: scripts, no command links, only the bundle's roots. */
export function chatWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, enableCommandUris: false, localResourceRoots: webviewResourceRoots(extensionUri) };
}

/**
 * One webview showing the chat. It gets messages only after it said `ready` (its `init` carries
 * everything before that); everything it sends goes to `receive`, the one validating entry point.
 * Remembers when the user last used it, so Focus Chat Input goes where the user is.
 */
export class ChatSurface extends Disposable {
  private ready = false;
  private closed = false;
  /** Increases each time the user shows or uses this surface; the largest one is the user's. */
  lastUsed: number;
  private readonly postedListeners = new Set<(m: HostToWebviewMessage) => void>();

  constructor(
    readonly kind: ChatSurfaceKind,
    private readonly container: SurfaceContainer,
    extensionUri: vscode.Uri,
    receive: (raw: unknown, from: ChatSurface) => Promise<void>,
    private readonly onDidClose: (surface: ChatSurface) => void,
  ) {
    super();
    this.lastUsed = ChatSurface.tick();
    container.webview.options = chatWebviewOptions(extensionUri);
    this._register(container.webview.onDidReceiveMessage((raw: unknown) => void receive(raw, this)));
    this._register(
      container.onDidChangeVisibility(() => {
        if (container.turnedTo()) this.used();
      }),
    );
    this._register(container.onDidDispose(() => this.dispose()));
    container.webview.html = renderWebviewHtml(container.webview, extensionUri, 'Strata Chat');
  }

  /** Closed (its container went away) or replaced: it is sent nothing more. */
  override dispose(): void {
    if (!this.closed) {
      this.closed = true;
      this.ready = false;
      this.onDidClose(this);
    }
    super.dispose();
  }

  private static counter = 0;
  private static tick(): number {
    return ++ChatSurface.counter;
  }

  get isReady(): boolean {
    return this.ready && !this.closed;
  }

  get visible(): boolean {
    return !this.closed && this.container.visible();
  }

  /** The webview said `ready` (again, after a reload of its page): it is sent messages from now on. */
  markReady(): void {
    this.ready = !this.closed;
  }

  used(): void {
    this.lastUsed = ChatSurface.tick();
  }

  async reveal(): Promise<void> {
    this.used();
    if (!this.closed) await this.container.reveal();
  }

  /** Delivers to this webview once it is ready; before that the message is dropped. */
  async post(message: HostToWebviewMessage): Promise<void> {
    if (!this.isReady) return;
    for (const l of this.postedListeners) l(message);
    await this.container.webview.postMessage(message).then(undefined, () => false);
  }

  /** Observes what is delivered to this webview (tests, diagnostics). */
  onDidPost(listener: (m: HostToWebviewMessage) => void): vscode.Disposable {
    this.postedListeners.add(listener);
    return new vscode.Disposable(() => this.postedListeners.delete(listener));
  }
}
