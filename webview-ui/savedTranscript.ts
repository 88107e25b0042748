/**
 * The last messages of the chat shown, kept with the view's saved state (`setState`), so a view
 * loaded again (a window reload) shows them at once, before the host's first state, which then
 * replaces them. Only what the panel was shown is kept, bounded: the last {@link SAVED_MESSAGES}
 * complete messages, each cut to {@link SAVED_CHARS} characters.
 */
import type { MessageView } from '../src/protocol/messages';

export const SAVED_MESSAGES = 20;
export const SAVED_CHARS = 8000;

export interface SavedMessage {
  id: string;
  turn: number;
  role: 'user' | 'assistant';
  text: string;
  attachments?: string[];
}

export interface SavedTranscriptState {
  chatId: string;
  messages: SavedMessage[];
}

function saved(m: MessageView): SavedMessage {
  const text = m.text.length > SAVED_CHARS ? `${m.text.slice(0, SAVED_CHARS)}…` : m.text;
  const out: SavedMessage = { id: m.id, turn: m.turn, role: m.role, text };
  if (m.attachments && m.attachments.length > 0) out.attachments = [...m.attachments];
  return out;
}

/** `raw` (from `getState`) when it has the shape this file writes, else undefined. */
export function parseSavedTranscript(raw: unknown): SavedTranscriptState | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.chatId !== 'string' || !Array.isArray(r.messages)) return undefined;
  const messages: SavedMessage[] = [];
  for (const m of r.messages.slice(-SAVED_MESSAGES) as unknown[]) {
    if (typeof m !== 'object' || m === null) return undefined;
    const v = m as Record<string, unknown>;
    if (typeof v.id !== 'string' || typeof v.text !== 'string' || !Number.isInteger(v.turn)) return undefined;
    if (v.role !== 'user' && v.role !== 'assistant') return undefined;
    const out: SavedMessage = { id: v.id, turn: v.turn as number, role: v.role, text: v.text.slice(0, SAVED_CHARS + 1) };
    if (Array.isArray(v.attachments) && v.attachments.every((a) => typeof a === 'string')) out.attachments = v.attachments as string[];
    messages.push(out);
  }
  return { chatId: r.chatId, messages };
}

/** The saved messages as the conversation shows them (complete, no usage line: the host's state adds that). */
export function savedViews(t: SavedTranscriptState): MessageView[] {
  return t.messages.map((m) => ({ ...m, status: 'complete' as const }));
}

/** Follows the chat the panel shows (its state, its turns) and says what to keep. */
export class TranscriptKeeper {
  private chatId = '';
  private messages: MessageView[] = [];
  /** The question of each turn under way, by turn id (the turn's end carries only the answer). */
  private readonly asked = new Map<string, MessageView>();

  constructor(private readonly keep: (t: SavedTranscriptState) => void) {}

  /** The host's state: the chat and its messages (the newest of them). */
  setChat(chatId: string, messages: readonly MessageView[]): void {
    this.chatId = chatId;
    this.messages = messages.filter((m) => m.status !== 'streaming').slice(-SAVED_MESSAGES);
    this.save();
  }

  turnStarted(turnId: string, user: MessageView): void {
    this.asked.set(turnId, user);
  }

  /** A turn ended in the chat shown: its question and answer are kept. */
  turnEnded(chatId: string, turnId: string, assistant: MessageView, kept: boolean): void {
    const user = this.asked.get(turnId);
    this.asked.delete(turnId);
    if (chatId !== this.chatId || !kept) return;
    const ids = new Set([user?.id, assistant.id]);
    this.messages = [...this.messages.filter((m) => !ids.has(m.id)), ...(user ? [user] : []), assistant].slice(-SAVED_MESSAGES);
    this.save();
  }

  /** A turn taken back (Regenerate, a stopped turn not kept). */
  removeTurn(chatId: string, turn: number): void {
    if (chatId !== this.chatId) return;
    this.messages = this.messages.filter((m) => m.turn !== turn);
    this.save();
  }

  private save(): void {
    this.keep({ chatId: this.chatId, messages: this.messages.map(saved) });
  }
}
