import { vscodeApi } from './vscodeApi';
import { parseSavedTranscript, type SavedTranscriptState } from './savedTranscript';

/**
 * UI-only state that survives the view being hidden and shown again (VS Code keeps it with
 * `setState`; the host knows nothing of it): the draft, where the conversation was scrolled,
 * whether the request preview was collapsed.
 */
export interface UiState {
  draft: string;
  /**
   * Where the draft was begun: the chat, and its last user turn then. A draft restored after the
   * window reloads, older than a send it became (see App.applyState), is told apart by them.
   */
  draftChatId?: string;
  draftAfterTurn?: number;
  /**
   * Drafts left in other chats (a draft belongs to its chat: switching chats parks the one being
   * written and brings back the one left in the chat switched to), oldest first, at most
   * MAX_PARKED_DRAFTS.
   */
  parked?: Record<string, ParkedDraft>;
  /** The chat the scroll position belongs to. */
  chatId?: string;
  /** Following the end of the conversation (the default), or anchored at a message. */
  atBottom: boolean;
  anchorId?: string;
  /** The anchored message's top relative to the viewport top, in px. */
  anchorOffset?: number;
  requestCollapsed: boolean;
  /** Long lines wrap in code blocks (the user's choice, kept with the view). */
  codeWrap?: boolean;
  /** The last messages shown, for a view loaded again to show before the host answers (savedTranscript.ts). */
  transcript?: SavedTranscriptState;
}

export interface ParkedDraft {
  text: string;
  /** The chat's last user turn when the draft was begun (see UiState.draftAfterTurn). */
  afterTurn?: number;
}

export const MAX_PARKED_DRAFTS = 20;

/** `parked` as kept: the MAX_PARKED_DRAFTS most recent (insertion order), undefined when none. */
export function keptParked(parked: Record<string, ParkedDraft>): Record<string, ParkedDraft> | undefined {
  const keys = Object.keys(parked);
  if (keys.length === 0) return undefined;
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_PARKED_DRAFTS))) delete parked[k];
  return parked;
}

const DEFAULTS: UiState = { draft: '', atBottom: true, requestCollapsed: false };

function parseParked(raw: unknown): Record<string, ParkedDraft> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const out: Record<string, ParkedDraft> = {};
  for (const [chatId, d] of Object.entries(raw as Record<string, unknown>).slice(-MAX_PARKED_DRAFTS)) {
    if (typeof d !== 'object' || d === null) continue;
    const r = d as Record<string, unknown>;
    if (typeof r.text !== 'string' || r.text.length === 0) continue;
    out[chatId] =
      typeof r.afterTurn === 'number' && Number.isInteger(r.afterTurn) ? { text: r.text, afterTurn: r.afterTurn } : { text: r.text };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function parse(raw: unknown): UiState {
  const s: UiState = { ...DEFAULTS };
  if (typeof raw !== 'object' || raw === null) return s;
  const r = raw as Record<string, unknown>;
  if (typeof r.draft === 'string') s.draft = r.draft;
  if (typeof r.draftChatId === 'string') s.draftChatId = r.draftChatId;
  if (typeof r.draftAfterTurn === 'number' && Number.isInteger(r.draftAfterTurn)) s.draftAfterTurn = r.draftAfterTurn;
  if (typeof r.chatId === 'string') s.chatId = r.chatId;
  if (typeof r.atBottom === 'boolean') s.atBottom = r.atBottom;
  if (typeof r.anchorId === 'string') s.anchorId = r.anchorId;
  if (typeof r.anchorOffset === 'number' && Number.isFinite(r.anchorOffset)) s.anchorOffset = r.anchorOffset;
  if (typeof r.requestCollapsed === 'boolean') s.requestCollapsed = r.requestCollapsed;
  if (r.codeWrap === true) s.codeWrap = true;
  const transcript = parseSavedTranscript(r.transcript);
  if (transcript) s.transcript = transcript;
  const parked = parseParked(r.parked);
  if (parked) s.parked = parked;
  return s;
}

/** Reads once; writes coalesced (100 ms), and at once when the page is hidden or goes away. */
export class UiStateStore {
  private state: UiState;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    this.state = parse(vscodeApi().getState());
    const flushNow = () => this.flush();
    document.addEventListener('visibilitychange', flushNow);
    window.addEventListener('pagehide', flushNow);
  }

  get(): Readonly<UiState> {
    return this.state;
  }

  update(patch: Partial<UiState>): void {
    this.state = { ...this.state, ...patch };
    this.timer ??= setTimeout(() => this.flush(), 100);
  }

  /** Writes now. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    vscodeApi().setState(this.state);
  }
}
