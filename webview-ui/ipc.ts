import { REQUEST_TIMEOUT_MS, type ResponseMessage, type WebviewRequest, type WebviewToHostMessage } from '../src/protocol/messages';

export type RequestResult = { ok: true; value: unknown } | { ok: false; error: string; timedOut?: true };

interface Pending {
  kind: WebviewRequest['kind'];
  resolve(result: RequestResult): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The webview's side of the request/response protocol: every request gets an id, the host's
 * `response` settles it, and a request without an answer after `REQUEST_TIMEOUT_MS` is failed and
 * forgotten (a late answer is then ignored). Never rejects: callers get `{ok: false, error}`.
 */
export class HostClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly post: (message: WebviewToHostMessage) => void,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {}

  ready(): void {
    this.post({ type: 'ready' });
  }

  request(request: WebviewRequest): Promise<RequestResult> {
    const requestId = this.nextId++;
    return new Promise<RequestResult>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        resolve({
          ok: false,
          error: `${request.kind}: no answer from the extension within ${Math.round(this.timeoutMs / 1000)} s`,
          timedOut: true,
        });
      }, this.timeoutMs);
      this.pending.set(requestId, { kind: request.kind, resolve, timer });
      try {
        this.post({ type: 'request', requestId, request });
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
    entry.resolve(message.ok ? { ok: true, value: message.value } : { ok: false, error: message.error });
  }

  get pendingCount(): number {
    return this.pending.size;
  }
}
