import * as vscode from 'vscode';
import { Disposable, DisposableStore } from '../common/lifecycle';
import {
  ProtocolError,
  parseWebviewToHostMessage,
  type HostToWebviewMessage,
  type WebviewToHostMessage,
} from '../protocol/messages';
import { VIEW_IDS } from './commandIds';
import { renderWebviewHtml, webviewResourceRoots } from './webviewHtml';

/**
 * The chat side panel. Placeholder for now: it loads the webview bundle, waits for the webview's
 * `ready` and then sends `init`. Messages posted before `ready` are queued, never dropped.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = VIEW_IDS.chat;

  private view: vscode.WebviewView | undefined;
  private ready = false;
  private pending: HostToWebviewMessage[] = [];
  private readonly viewDisposables = this._register(new DisposableStore());
  private readonly onDidBecomeReadyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a (re)created webview reports `ready`. */
  readonly onDidBecomeReady = this.onDidBecomeReadyEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly extensionVersion: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
  }

  /** Resolves once a webview has said `ready` (at once if the current one already has). */
  whenReady(): Promise<void> {
    if (this.ready) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const subscription = this.onDidBecomeReady(() => {
        subscription.dispose();
        resolve();
      });
    });
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
    this.viewDisposables.add(webviewView.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)));
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

  /** Sends now when the webview is ready, otherwise after its `ready`. */
  post(message: HostToWebviewMessage): void {
    if (this.view && this.ready) {
      void this.view.webview.postMessage(message);
    } else {
      this.pending.push(message);
    }
  }

  private onMessage(raw: unknown): void {
    const message = parseWebviewToHostMessage(raw);
    if (message instanceof ProtocolError) {
      this.log.warn(`chat view: rejected a message from the webview (${message.message})`);
      return;
    }
    this.handle(message);
  }

  private handle(message: WebviewToHostMessage): void {
    switch (message.type) {
      case 'request':
        break;
      case 'ready': {
        this.ready = true;
        const queued = this.pending;
        this.pending = [];
        queued.forEach((m) => this.post(m));
        this.onDidBecomeReadyEmitter.fire();
        break;
      }
    }
  }
}
