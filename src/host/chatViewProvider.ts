import * as vscode from 'vscode';
import { Disposable, DisposableStore } from '../common/lifecycle';
import { PROTOCOL_VERSION, ProtocolError, type HostToWebviewMessage, type PanelState } from '../protocol/messages';
import { parseWebviewToHostMessage, type ResponseOf, type WebviewRequestKind, type WebviewRequestOf } from '../protocol/requests';
import { VIEW_IDS } from './commandIds';
import { renderWebviewHtml, webviewResourceRoots } from './webviewHtml';

/** What the panel asks of the host; the webview is UI, this decides. */
export interface PanelHandler {
  /** The whole panel, for `init` and after the view is re-created. */
  panelState(): Promise<PanelState>;
  /** The `init` carrying `state` has reached the webview (what it left out can follow). */
  statePosted(state: PanelState): void;
  /** Acts on one validated request; the resolved value (or the error's message) is the response. */
  handle<K extends WebviewRequestKind>(request: WebviewRequestOf<K>): Promise<ResponseOf<K>>;
  /** The user is typing in the composer. */
  typing?(): void;
}

/**
 * The chat side panel (WebviewView `strata.chat`). Loads the webview bundle, waits for the webview's
 * `ready`, then sends `init`; messages posted before `ready` are dropped (the `init` state carries
 * everything). Every inbound message is validated: a malformed or forged one is rejected and logged,
 * never acted on.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = VIEW_IDS.chat;

  private view: vscode.WebviewView | undefined;
  private ready = false;
  private handler: PanelHandler | undefined;
  private readonly viewDisposables = this._register(new DisposableStore());
  private readonly onDidBecomeReadyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a (re)created webview reports `ready` and has been sent `init`. */
  readonly onDidBecomeReady = this.onDidBecomeReadyEmitter.event;
  private readonly onDidRejectEmitter = this._register(new vscode.EventEmitter<string>());
  /** Fires with the reason whenever an inbound message is rejected (tests, diagnostics). */
  readonly onDidReject = this.onDidRejectEmitter.event;
  /** Observers of every message posted to the webview (tests, diagnostics). */
  private readonly postedListeners = new Set<(m: HostToWebviewMessage) => void>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly extensionVersion: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
  }

  setHandler(handler: PanelHandler): void {
    this.handler = handler;
  }

  get isReady(): boolean {
    return !!this.view && this.ready;
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  /** Resolves once a webview has said `ready` and got `init` (at once if the current one has). */
  whenReady(): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve) => {
      const subscription = this.onDidBecomeReady(() => {
        subscription.dispose();
        resolve();
      });
    });
  }

  /** Observes every message posted to the webview (used by the integration tests). */
  onDidPost(listener: (m: HostToWebviewMessage) => void): vscode.Disposable {
    this.postedListeners.add(listener);
    return new vscode.Disposable(() => this.postedListeners.delete(listener));
  }

  resolveWebviewView(webviewView: vscode.WebviewView): void {
    // One webview at a time: drop the listeners of a previous one (the view was closed and reopened).
    this.viewDisposables.clear();
    this.view = webviewView;
    this.ready = false;

    webviewView.webview.options = {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: webviewResourceRoots(this.extensionUri),
    };
    this.viewDisposables.add(webviewView.webview.onDidReceiveMessage((raw: unknown) => void this.receive(raw)));
    this.viewDisposables.add(
      webviewView.onDidDispose(() => {
        if (this.view === webviewView) {
          this.view = undefined;
          this.ready = false;
          this.viewDisposables.clear();
        }
      }),
    );
    webviewView.webview.html = renderWebviewHtml(webviewView.webview, this.extensionUri, 'Strata Chat');
  }

  /** Reveals the panel (and focuses its input when asked). */
  async reveal(focusInput = false): Promise<void> {
    await vscode.commands.executeCommand(`${VIEW_IDS.chat}.focus`);
    if (focusInput) this.post({ type: 'focusInput' });
  }

  /** Sends now when the webview is ready; otherwise drops it (`init` will carry the current state). */
  post(message: HostToWebviewMessage): void {
    void this.postDelivered(message);
  }

  /**
   * `post`, resolved once the message has left this process (the extension host), so that work
   * started after it does not hold the message back.
   */
  async postDelivered(message: HostToWebviewMessage): Promise<void> {
    for (const l of this.postedListeners) l(message);
    if (this.view && this.ready) await this.view.webview.postMessage(message).then(undefined, () => false);
  }

  /**
   * The one entry point for everything the webview sends (also used by the integration suite to
   * deliver forged messages through the same checks).
   */
  async receive(raw: unknown): Promise<void> {
    const message = parseWebviewToHostMessage(raw);
    if (message instanceof ProtocolError) {
      this.log.warn(`chat view: rejected a message from the webview: ${message.message}`);
      this.onDidRejectEmitter.fire(message.message);
      return;
    }
    if (message.type === 'ready') {
      this.ready = !!this.view;
      if (this.handler) {
        try {
          const state = await this.handler.panelState();
          await this.postDelivered({ type: 'init', protocolVersion: PROTOCOL_VERSION, extensionVersion: this.extensionVersion, state });
          this.handler.statePosted(state);
        } catch (e) {
          this.log.error(`chat view: could not build the panel state: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      this.onDidBecomeReadyEmitter.fire();
      return;
    }
    if (message.type === 'typing') {
      this.handler?.typing?.();
      return;
    }
    const { requestId, request } = message;
    if (!this.handler) {
      this.post({ type: 'response', requestId, ok: false, error: 'Strata is still starting.' });
      return;
    }
    try {
      const value = await this.handler.handle(request);
      this.post({ type: 'response', requestId, ok: true, value: value === undefined ? undefined : value });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      this.log.warn(`chat view: ${request.kind} failed: ${error}`);
      this.post({ type: 'response', requestId, ok: false, error });
    }
  }
}
