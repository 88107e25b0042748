/**
 * The chat list (`index.json`): id, title, turns, created/updated of every chat, written atomically.
 * It is a convenience over the chat files: an unreadable index reads as empty (and is rebuilt from
 * the chat files when the store opens, see `ChatStore.open`). Writers hold the store lock.
 */
import * as fs from 'fs';
import { isObj } from '../../common/guards';
import { writeFileAtomic } from './atomicFile';
import { CHAT_ID, FORMAT_VERSION, INDEX_FORMAT } from './chatFormat';
import type { ChatIndexEntry } from './chatTypes';

export class ChatIndex {
  constructor(
    readonly file: string,
    private readonly durable: boolean,
    private readonly now: () => Date,
    /** Told when the index is unreadable (the store's warnings). */
    private readonly warn: (warning: string) => void,
  ) {}

  read(): ChatIndexEntry[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    try {
      const obj = JSON.parse(text) as unknown;
      if (!isObj(obj) || obj.format !== INDEX_FORMAT || !Array.isArray(obj.chats)) throw new Error('not a chat index');
      return (obj.chats as unknown[]).filter(
        (c): c is ChatIndexEntry =>
          isObj(c) &&
          typeof c.id === 'string' &&
          CHAT_ID.test(c.id) &&
          typeof c.title === 'string' &&
          typeof c.turns === 'number' &&
          typeof c.createdAt === 'string' &&
          typeof c.updatedAt === 'string',
      );
    } catch {
      this.warn('index.json was unreadable and has been rebuilt from the chat files');
      return [];
    }
  }

  write(chats: ChatIndexEntry[]): void {
    const body = JSON.stringify({ format: INDEX_FORMAT, v: FORMAT_VERSION, chats }, null, 1) + '\n';
    writeFileAtomic(this.file, Buffer.from(body, 'utf8'), this.durable);
  }

  /** Records a save: the chat's turn count and update time (a new chat gets `title`). */
  upsert(id: string, turns: number, title: string): void {
    const index = this.read();
    const at = this.now().toISOString();
    const i = index.findIndex((c) => c.id === id);
    if (i >= 0) index[i] = { ...index[i], turns, updatedAt: at };
    else index.push({ id, title, turns, createdAt: at, updatedAt: at });
    this.write(index);
  }

  /** Changes one chat's entry; undefined (and nothing written) when the index has none for `id`. */
  update(id: string, change: (entry: ChatIndexEntry) => ChatIndexEntry): ChatIndexEntry | undefined {
    const index = this.read();
    const i = index.findIndex((c) => c.id === id);
    if (i < 0) return undefined;
    index[i] = change(index[i]);
    this.write(index);
    return index[i];
  }

  /** Drops a chat's entry. */
  remove(id: string): void {
    this.write(this.read().filter((c) => c.id !== id));
  }
}
