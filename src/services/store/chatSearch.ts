/**
 * Search over the chats of a store, by title and by the text of their turns (the user's messages,
 * the replies and the text written between tool steps). The chat files are read asynchronously, one
 * at a time, so the extension host is free between two chats and a search over a thousand chats
 * never holds it for long; a newer search stops an older one, and a time bound ends a search that
 * has not finished (its answer then says it is incomplete). What was read is kept while the file
 * is unchanged, so typing more of a query searches memory.
 */
import * as fs from 'fs';
import { isObj } from '../../common/guards';

/** A chat the search found; `excerpt` is the text around the first match when the title did not match. */
export interface ChatSearchMatch {
  chatId: string;
  excerpt?: string;
}

export interface ChatSearchOutcome {
  matches: ChatSearchMatch[];
  /** False when the time bound or a newer search ended this one before every chat was looked at. */
  complete: boolean;
  /** The longest the search held the event loop in one go (milliseconds). */
  longestSliceMs: number;
}

export interface ChatSearchOptions {
  /** The whole search gives up after this long (milliseconds). */
  deadlineMs?: number;
  now?: () => number;
}

const EXCERPT_BEFORE = 40;
const EXCERPT_CHARS = 140;

interface ChatTexts {
  mtimeMs: number;
  size: number;
  /** Every text of the chat, lower-cased for matching, and as written for the excerpt. */
  lower: string[];
  texts: string[];
}

/** The texts of a chat file's turns, as the last line leaves them (a turn dropped by Regenerate is gone). */
export function chatTexts(fileText: string): string[] {
  let turns: string[][] = [];
  for (const line of fileText.split('\n')) {
    if (line.length === 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // A torn last line (a write in progress): the turns before it still count.
    }
    const delta = isObj(parsed) && isObj(parsed.delta) ? parsed.delta : undefined;
    const change = delta && isObj(delta.turns) ? delta.turns : undefined;
    if (!change || typeof change.keep !== 'number' || !Array.isArray(change.add)) continue;
    turns = turns.slice(0, change.keep);
    for (const t of change.add as unknown[]) {
      if (!isObj(t)) continue;
      const texts: string[] = [];
      if (typeof t.userText === 'string') texts.push(t.userText);
      if (Array.isArray(t.steps)) for (const s of t.steps) if (isObj(s) && typeof s.text === 'string' && s.text) texts.push(s.text);
      if (typeof t.reply === 'string') texts.push(t.reply);
      turns.push(texts);
    }
  }
  return turns.flat();
}

function excerptAround(text: string, at: number, length: number): string {
  const start = Math.max(0, at - EXCERPT_BEFORE);
  const end = Math.min(text.length, start + Math.max(EXCERPT_CHARS, length + EXCERPT_BEFORE));
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

export class ChatSearch {
  /** The texts of each chat read so far, kept while the file is unchanged. */
  private readonly cache = new Map<string, ChatTexts>();
  private generation = 0;

  constructor(private readonly chatFile: (chatId: string) => string) {}

  /** Forgets what was read (the store was replaced). */
  clear(): void {
    this.cache.clear();
  }

  /**
   * The chats of `chats` (in their order) whose title or text contains `query`, case-insensitive.
   * A blank query matches every chat. Each chat's file is read with a non-blocking read, so the
   * event loop is free between two chats; what holds it is one chat's parse and match.
   */
  async search(query: string, chats: readonly { id: string; title: string }[], opts: ChatSearchOptions = {}): Promise<ChatSearchOutcome> {
    const generation = ++this.generation;
    const now = opts.now ?? (() => performance.now());
    const deadline = now() + (opts.deadlineMs ?? 3000);
    const needle = query.trim().toLowerCase();
    if (needle.length === 0) return { matches: chats.map((c) => ({ chatId: c.id })), complete: true, longestSliceMs: 0 };
    const matches: ChatSearchMatch[] = [];
    let longest = 0;
    for (const chat of chats) {
      if (chat.title.toLowerCase().includes(needle)) {
        matches.push({ chatId: chat.id });
        continue;
      }
      const file = await this.fileOf(chat.id);
      if (generation !== this.generation || now() > deadline) return { matches, complete: false, longestSliceMs: longest };
      const from = now();
      const found = this.match(this.textsOf(chat.id, file), needle);
      if (found) matches.push({ chatId: chat.id, excerpt: found });
      longest = Math.max(longest, now() - from);
    }
    return { matches, complete: true, longestSliceMs: longest };
  }

  private match(entry: ChatTexts | undefined, needle: string): string | undefined {
    if (!entry) return undefined;
    for (let i = 0; i < entry.lower.length; i++) {
      const at = entry.lower[i].indexOf(needle);
      if (at >= 0) return excerptAround(entry.texts[i], at, needle.length);
    }
    return undefined;
  }

  /** The chat file's size and time, and its text when the cache does not hold it as it is now. */
  private async fileOf(chatId: string): Promise<{ stat: fs.Stats; text?: string } | undefined> {
    const path = this.chatFile(chatId);
    try {
      const stat = await fs.promises.stat(path);
      const cached = this.cache.get(chatId);
      if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return { stat };
      return { stat, text: await fs.promises.readFile(path, 'utf8') };
    } catch {
      return undefined; // Deleted or moved aside meanwhile: not found.
    }
  }

  private textsOf(chatId: string, file: { stat: fs.Stats; text?: string } | undefined): ChatTexts | undefined {
    if (!file) return undefined;
    if (file.text === undefined) return this.cache.get(chatId);
    const texts = chatTexts(file.text);
    const entry: ChatTexts = { mtimeMs: file.stat.mtimeMs, size: file.stat.size, texts, lower: texts.map((t) => t.toLowerCase()) };
    this.cache.set(chatId, entry);
    return entry;
  }
}
