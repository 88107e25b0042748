/**
 * The active chat's token counts, saved beside it: its tokenizer remembers what it counts and is
 * given what the chat's earlier windows counted, so opening a long chat does not tokenize its whole
 * history again before the first meter. The saved counts are a cache: a failure to save only costs
 * the next window that time.
 */
import type { ITokenizer } from '../../engine/types';
import type { ChatStore } from '../store/chatStore';

/**
 * A tokenizer as the session wants it: `warm` counts big content ahead without blocking; `seed`,
 * `setRecorder` and `counter` let a chat's token counts be saved beside it and reused when it is
 * opened again (see `ChatStore.appendTokenCounts`).
 */
export type SessionTokenizer = ITokenizer & {
  warm?(text: string, signal?: AbortSignal): Promise<void>;
  readonly counter?: string;
  seed?(counts: Iterable<readonly [string, number]>): void;
  setRecorder?(fn: ((key: string, n: number) => void) | undefined): void;
};

export class TokenCountTracker {
  /** Texts counted for the active chat since its last saved turn: saved beside it with the next turn. */
  private recorded = new Map<string, number>();
  /** `<counter> <chat id>` that `recorded` belongs to. */
  private recordedFor = '';
  /** Chats whose saved counts this session's tokenizers were given (per counter). */
  private readonly seeded = new Set<string>();
  /** A chat was opened from disk: the counts of its first meter are saved at once. */
  private saveAfterFirstMeter = false;

  constructor(
    private readonly store: Pick<ChatStore, 'hasChat' | 'loadTokenCounts' | 'appendTokenCounts'>,
    private readonly log: (line: string) => void,
  ) {}

  /** From now on `tok` counts for chat `chatId`: it is given the chat's saved counts once, and records what it counts. */
  track(chatId: string, tok: SessionTokenizer): void {
    if (!tok.seed || !tok.setRecorder || !tok.counter) return;
    const key = `${tok.counter} ${chatId}`;
    if (!this.seeded.has(key) && this.store.hasChat(chatId)) {
      this.seeded.add(key);
      tok.seed(this.store.loadTokenCounts(chatId, tok.counter));
    }
    if (this.recordedFor !== key) this.recorded = new Map();
    this.recordedFor = key;
    const counts = this.recorded;
    tok.setRecorder((k, n) => counts.set(k, n));
  }

  /** Saves the counts `tok` recorded for `chatId` since its last saved turn. */
  save(chatId: string, tok: SessionTokenizer): void {
    if (this.recorded.size === 0 || !tok.counter || this.recordedFor !== `${tok.counter} ${chatId}`) return;
    if (!this.store.appendTokenCounts(chatId, tok.counter, [...this.recorded]))
      this.log(`chat ${chatId}: its token counts could not be saved (the next window counts its history again)`);
    this.recorded.clear();
  }

  /** A chat was opened from disk: what its first meter counts is saved then, not only with its next turn. */
  openedFromDisk(): void {
    this.saveAfterFirstMeter = true;
  }

  /**
   * After a meter was built: the first meter of a chat opened from disk counts what its saved counts
   * lack (all of it, for a chat an older version saved), kept now so the next window does not count
   * it again.
   */
  meterBuilt(chatId: string, tok: SessionTokenizer): void {
    if (!this.saveAfterFirstMeter) return;
    this.saveAfterFirstMeter = false;
    if (this.store.hasChat(chatId)) this.save(chatId, tok);
  }
}
