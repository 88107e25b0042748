import { ProtocolError, REQUEST_TIMEOUT_MS, type ResponseMessage } from '../src/protocol/messages';
import {
  parseResponseValue,
  type PanelResponseOf,
  type WebviewRequest,
  type WebviewRequestKind,
  type WebviewRequestOf,
  TYPING_NOTICE_MS,
  type WebviewToHostMessage,
} from '../src/protocol/requests';

/** How a request ended: its checked value, or why it failed. */
export type RequestResult<T = undefined> = { ok: true; value: T } | { ok: false; error: string; timedOut?: true };

interface Pending {
  kind: WebviewRequestKind;
  resolve(result: RequestResult<unknown>): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The webview's side of the request/response protocol: every request gets an id, the host's
 * `response` settles it, and a request without an answer after `REQUEST_TIMEOUT_MS` is failed and
 * forgotten (a late answer is then ignored). An answer's value is checked where it arrives; one that
 * fails its check fails the request. Never rejects: callers get `{ok: false, error}`.
 */
export class HostClient {
  private nextId = 1;
  private typedAt = -Infinity;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly post: (message: WebviewToHostMessage) => void,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {}

  ready(): void {
    this.post({ type: 'ready' });
  }

  /** Says the user is typing, at most once every `TYPING_NOTICE_MS`. */
  typing(now = Date.now()): void {
    if (now - this.typedAt < TYPING_NOTICE_MS) return;
    this.typedAt = now;
    this.post({ type: 'typing' });
  }

  request<K extends WebviewRequestKind>(request: WebviewRequestOf<K>): Promise<RequestResult<PanelResponseOf<K>>> {
    const requestId = this.nextId++;
    return new Promise<RequestResult<PanelResponseOf<K>>>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        resolve({
          ok: false,
          error: `${request.kind}: no answer from the extension within ${Math.round(this.timeoutMs / 1000)} s`,
          timedOut: true,
        });
      }, this.timeoutMs);
      this.pending.set(requestId, { kind: request.kind, resolve: resolve as Pending['resolve'], timer });
      try {
        this.post({ type: 'request', requestId, request: request as WebviewRequest });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(requestId);
        resolve({ ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    });
  }

  /** Settles the request the response names; answers to unknown (timed-out) ids are ignored. */
  handleResponse(message: ResponseMessage): void {
    const entry = this.pending.get(message.requestId);
    if (!entry) return;
    this.pending.delete(message.requestId);
    clearTimeout(entry.timer);
    if (!message.ok) {
      entry.resolve({ ok: false, error: message.error });
      return;
    }
    const value = parseResponseValue(entry.kind, message.value);
    entry.resolve(value instanceof ProtocolError ? { ok: false, error: value.message } : { ok: true, value });
  }

  get pendingCount(): number {
    return this.pending.size;
  }
}
