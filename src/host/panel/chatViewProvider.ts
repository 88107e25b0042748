import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import { PROTOCOL_VERSION, ProtocolError, type HostToWebviewMessage, type PanelState } from '../../protocol/messages';
import { parseWebviewToHostMessage, type ResponseOf, type WebviewRequestKind, type WebviewRequestOf } from '../../protocol/requests';
import { VIEW_IDS } from '../commands/commandIds';
import { ChatSurface, type ChatSurfaceKind, type SurfaceContainer } from './chatSurface';
import { toolIcons } from '../../services/tools/definitions';

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
 * The chat's webviews: the side bar's WebviewView `strata.chat` and any editor tab (chatEditorPanel.ts),
 * each a `ChatSurface` showing the same chat. A surface gets `init` when it says `ready`; state
 * changes and stream deltas go to every ready surface; a request's `response` goes back only to the
 * surface that asked. Every inbound message, from any surface, is validated here: a malformed or
 * forged one is rejected and logged, never acted on.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = VIEW_IDS.chat;

  private readonly surfaces = new Set<ChatSurface>();
  private viewSurface: ChatSurface | undefined;
  private handler: PanelHandler | undefined;
  private readonly onDidBecomeReadyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a (re)created webview reports `ready` and has been sent `init`. */
  readonly onDidBecomeReady = this.onDidBecomeReadyEmitter.event;
  private readonly onDidRejectEmitter = this._register(new vscode.EventEmitter<string>());
  /** Fires with the reason whenever an inbound message is rejected (tests, diagnostics). */
  readonly onDidReject = this.onDidRejectEmitter.event;
  /** Observers of every message posted to any webview (tests, diagnostics). */
  private readonly postedListeners = new Set<(m: HostToWebviewMessage) => void>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly extensionVersion: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register({ dispose: () => [...this.surfaces].forEach((s) => s.dispose()) });
  }

  setHandler(handler: PanelHandler): void {
    this.handler = handler;
  }

  /** The side view as last resolved (for its badge). */
  private sideView: vscode.WebviewView | undefined;

  /** Some surface has said `ready` and got `init`. */
  get isReady(): boolean {
    return [...this.surfaces].some((s) => s.isReady);
  }

  /** Some surface is on screen. */
  get visible(): boolean {
    return [...this.surfaces].some((s) => s.visible);
  }

  /** The open surface of that kind (the newest editor tab), if any. */
  surface(kind: ChatSurfaceKind): ChatSurface | undefined {
    return [...this.surfaces].reverse().find((s) => s.kind === kind);
  }

  /** Resolves once a webview has said `ready` and got `init` (at once if one has). */
  whenReady(): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve) => {
      const subscription = this.onDidBecomeReady(() => {
        subscription.dispose();
        resolve();
      });
    });
  }

  /** Observes every message posted to the webviews (used by the integration tests). */
  onDidPost(listener: (m: HostToWebviewMessage) => void): vscode.Disposable {
    this.postedListeners.add(listener);
    return new vscode.Disposable(() => this.postedListeners.delete(listener));
  }

  /**
   * Marks the side view's icon (a count, with `tooltip`) for something done for it out of sight,
   * where it could not be revealed; the mark goes when the view is shown. Returns whether it was marked.
   */
  markUnseen(tooltip: string): boolean {
    const v = this.sideView;
    if (!v || v.visible) return false;
    v.badge = { value: (v.badge?.value ?? 0) + 1, tooltip };
    return true;
  }

  resolveWebviewView(webviewView: vscode.WebviewView): void {
    this.sideView = webviewView;
    webviewView.onDidChangeVisibility(() => {
      if (webviewView.visible) webviewView.badge = undefined;
    });
    // One side view at a time: a previous one was closed and its surface goes with it.
    this.viewSurface?.dispose();
    this.viewSurface = this.attach('view', {
      webview: webviewView.webview,
      visible: () => webviewView.visible,
      turnedTo: () => webviewView.visible,
      reveal: () => vscode.commands.executeCommand(`${VIEW_IDS.chat}.focus`),
      onDidChangeVisibility: webviewView.onDidChangeVisibility,
      onDidDispose: webviewView.onDidDispose,
    });
  }

  /** Shows the chat in a new webview (loads the bundle; `init` follows its `ready`). */
  attach(kind: ChatSurfaceKind, container: SurfaceContainer): ChatSurface {
    const surface = new ChatSurface(
      kind,
      container,
      this.extensionUri,
      (raw, from) => this.receive(raw, from),
      (closed) => {
        this.surfaces.delete(closed);
        if (this.viewSurface === closed) this.viewSurface = undefined;
      },
    );
    this.surfaces.add(surface);
    return surface;
  }

  /**
   * Reveals the surface the user last used (the side view when none is open) and focuses its input
   * when asked.
   */
  async reveal(focusInput = false): Promise<void> {
    const target = [...this.surfaces].sort((a, b) => b.lastUsed - a.lastUsed)[0];
    if (target) await target.reveal();
    else await vscode.commands.executeCommand(`${VIEW_IDS.chat}.focus`);
    if (focusInput) await this.postTo(target ?? this.viewSurface, { type: 'focusInput' });
  }

  /**
   * Brings the chat into sight without taking the focus from where the user is (the Explorer, the
   * editor): the surface last used, else the side view. Throws where the workbench cannot show it.
   */
  async show(): Promise<void> {
    const target = [...this.surfaces].sort((a, b) => b.lastUsed - a.lastUsed)[0];
    if (this.sideView && (!target || target.kind === 'view')) this.sideView.show(true);
    else await this.reveal(false);
  }

  /** Sends now to every ready webview; the others get the current state with their `init`. */
  post(message: HostToWebviewMessage): void {
    void this.postDelivered(message);
  }

  /**
   * `post`, resolved once the message has left this process (the extension host), so that work
   * started after it does not hold the message back.
   */
  async postDelivered(message: HostToWebviewMessage): Promise<void> {
    for (const l of this.postedListeners) l(message);
    await Promise.all([...this.surfaces].map((s) => s.post(message)));
  }

  /** To one surface only (a response, its `init`); with none, only the observers see it. */
  private async postTo(surface: ChatSurface | undefined, message: HostToWebviewMessage): Promise<void> {
    for (const l of this.postedListeners) l(message);
    await surface?.post(message);
  }

  /**
   * The one entry point for everything a webview sends (also used by the integration suite to
   * deliver forged messages through the same checks; they come from the side view unless it names
   * another surface).
   */
  async receive(raw: unknown, from: ChatSurface | undefined = this.viewSurface): Promise<void> {
    const message = parseWebviewToHostMessage(raw);
    if (message instanceof ProtocolError) {
      this.log.warn(`chat ${from?.kind ?? 'view'}: rejected a message from the webview: ${message.message}`);
      this.onDidRejectEmitter.fire(message.message);
      return;
    }
    if (message.type === 'ready') {
      from?.markReady();
      if (this.handler) {
        try {
          const state = await this.handler.panelState();
          await this.postTo(from, {
            type: 'init',
            protocolVersion: PROTOCOL_VERSION,
            extensionVersion: this.extensionVersion,
            state,
            toolIcons: toolIcons(),
          });
          this.handler.statePosted(state);
        } catch (e) {
          this.log.error(`chat view: could not build the panel state: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      this.onDidBecomeReadyEmitter.fire();
      return;
    }
    from?.used();
    if (message.type === 'typing') {
      this.handler?.typing?.();
      return;
    }
    const { requestId, request } = message;
    if (!this.handler) {
      await this.postTo(from, { type: 'response', requestId, ok: false, error: 'Strata is still starting.' });
      return;
    }
    try {
      const value = await this.handler.handle(request);
      void this.postTo(from, { type: 'response', requestId, ok: true, value: value === undefined ? undefined : value });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      this.log.warn(`chat view: ${request.kind} failed: ${error}`);
      void this.postTo(from, { type: 'response', requestId, ok: false, error });
    }
  }
}
