/**
 * Host ⇄ webview messages, declared once for both sides, each with a runtime check: the host
 * validates everything the webview sends (the webview is UI, not trust) and the webview validates
 * what it receives. Requests with ids and `{ok, value} | {ok: false, error}` replies join this file
 * as the chat features land (DESIGN §6).
 */

export const PROTOCOL_VERSION = 1;

/** The webview's script has loaded and listens; the host posts nothing before this. */
export interface ReadyMessage {
  readonly type: 'ready';
}

export type WebviewToHostMessage = ReadyMessage;

/** First message after `ready`. */
export interface InitMessage {
  readonly type: 'init';
  readonly protocolVersion: number;
  readonly extensionVersion: string;
}

export type HostToWebviewMessage = InitMessage;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseWebviewToHostMessage(value: unknown): WebviewToHostMessage | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  switch (value.type) {
    case 'ready':
      return { type: 'ready' };
    default:
      return undefined;
  }
}

export function parseHostToWebviewMessage(value: unknown): HostToWebviewMessage | undefined {
  if (!isRecord(value)) {
    return undefined;
  }
  switch (value.type) {
    case 'init':
      if (typeof value.protocolVersion === 'number' && typeof value.extensionVersion === 'string') {
        return { type: 'init', protocolVersion: value.protocolVersion, extensionVersion: value.extensionVersion };
      }
      return undefined;
    default:
      return undefined;
  }
}
