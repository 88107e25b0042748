import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../../src/extension';
import type { HostToWebviewMessage } from '../../../src/protocol/messages';
import type { WebviewRequest } from '../../../src/protocol/requests';

export const EXTENSION_ID = 'strata-dev.strata';

export async function strataApi(): Promise<StrataApi> {
  const extension = vscode.extensions.getExtension<StrataApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  return extension.activate();
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function until(what: string, probe: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The panel as the webview sees it: requests go through the same validation as the webview's
 * (`api.testing.receive`), and everything the host posts is recorded.
 */
export class PanelDriver implements vscode.Disposable {
  readonly posted: HostToWebviewMessage[] = [];
  readonly rejected: string[] = [];
  private nextId = 1000;
  private readonly subscriptions: vscode.Disposable[];

  constructor(readonly api: StrataApi) {
    this.subscriptions = [api.testing.onDidPost((m) => this.posted.push(m)), api.testing.onDidReject((r) => this.rejected.push(r))];
  }

  /** Sends a request as the webview would and returns the host's response. */
  async request(request: WebviewRequest): Promise<{ ok: boolean; value?: unknown; error?: string }> {
    const requestId = this.nextId++;
    await this.api.testing.receive({ type: 'request', requestId, request });
    const response = this.posted.find((m) => m.type === 'response' && m.requestId === requestId);
    assert.ok(response && response.type === 'response', `no response to ${request.kind}`);
    return response.ok ? { ok: true, value: response.value } : { ok: false, error: response.error };
  }

  async requestOk(request: WebviewRequest): Promise<unknown> {
    const r = await this.request(request);
    assert.ok(r.ok, `${request.kind} failed: ${r.error}`);
    return r.value;
  }

  of<T extends HostToWebviewMessage['type']>(type: T): Extract<HostToWebviewMessage, { type: T }>[] {
    return this.posted.filter((m): m is Extract<HostToWebviewMessage, { type: T }> => m.type === type);
  }

  last<T extends HostToWebviewMessage['type']>(type: T): Extract<HostToWebviewMessage, { type: T }> | undefined {
    const all = this.of(type);
    return all[all.length - 1];
  }

  clear(): void {
    this.posted.length = 0;
    this.rejected.length = 0;
  }

  /** Sends a message and waits for the turn to end; returns the turn's messages. */
  async sendAndWait(text: string): Promise<{
    started: Extract<HostToWebviewMessage, { type: 'turnStarted' }>;
    chunks: Extract<HostToWebviewMessage, { type: 'chunk' }>[];
    ended: Extract<HostToWebviewMessage, { type: 'turnEnded' }>;
  }> {
    const from = this.posted.length;
    await this.requestOk({ kind: 'send', text });
    await withTimeout(this.api.testing.controller.whenTurnDone(), 30_000, 'the turn to end');
    const mine = this.posted.slice(from);
    const started = mine.find((m): m is Extract<HostToWebviewMessage, { type: 'turnStarted' }> => m.type === 'turnStarted');
    assert.ok(started, 'no turnStarted was posted');
    const chunks = mine.filter(
      (m): m is Extract<HostToWebviewMessage, { type: 'chunk' }> => m.type === 'chunk' && m.turnId === started.turnId,
    );
    const ended = mine.find(
      (m): m is Extract<HostToWebviewMessage, { type: 'turnEnded' }> => m.type === 'turnEnded' && m.turnId === started.turnId,
    );
    assert.ok(ended, 'no turnEnded was posted');
    return { started, chunks, ended };
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }
}

/** Sets `strata.*` user settings and waits until the controller resolved the provider again. */
export async function configure(api: StrataApi, values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('strata');
  for (const [key, value] of Object.entries(values)) await config.update(key, value, vscode.ConfigurationTarget.Global);
  await api.testing.controller.refreshProvider();
}

export function folderUri(name: string): vscode.Uri {
  const f = vscode.workspace.workspaceFolders?.find((w) => w.name === name);
  assert.ok(f, `workspace folder ${name} is not open`);
  return f.uri;
}

/** Opens a workspace file in an editor and selects whole lines `from`–`to` (1-based, inclusive). */
export async function selectLines(relative: string[], from: number, to: number): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folderUri('app'), ...relative));
  const editor = await vscode.window.showTextDocument(doc);
  editor.selection = new vscode.Selection(from - 1, 0, to, 0);
  return editor;
}
