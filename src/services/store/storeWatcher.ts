/**
 * Tells a window when the chat store folder changed on disk: another window of the same folder saved a
 * turn (`chats/<id>.jsonl`), or renamed or deleted a chat (`index.json`). Node's `fs.watch` on the two
 * folders (not recursive: the chats folder is flat), events gathered for `debounceMs` so a save (a blob,
 * a line, the index) is one notification. This window's own saves are reported too; the session's
 * `syncWithDisk` finds nothing to do for them (a stat and a short read).
 *
 * Where `fs.watch` is not available (some network and virtual file systems throw, or the watcher
 * fails later), the folder is polled instead (`pollMs`): the index and chat files' sizes and mtimes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { CHAT_FILE } from './chatFormat';

export interface StoreChange {
  /** Ids of the chats whose file changed (or appeared, or went). */
  chats: string[];
  /** The chat list changed (a rename, a delete, a new chat). */
  index: boolean;
}

export interface StoreWatcherOptions {
  /** Gather events for this long before reporting (ms). Default 100. */
  debounceMs?: number;
  /** Poll interval when fs.watch is not available (ms). Default 2000. */
  pollMs?: number;
  /** Force polling (tests). */
  poll?: boolean;
  /** Watcher problems (the window's log). */
  log?: (line: string) => void;
}

export interface Disposable {
  dispose(): void;
}

/** Watches the chat store at `root` (`ChatStore.root`); `onChange` is called after each burst of changes. */
export function watchChatStore(root: string, onChange: (change: StoreChange) => void, options: StoreWatcherOptions = {}): Disposable {
  const debounceMs = options.debounceMs ?? 100;
  const chatsDir = path.join(root, 'chats');
  let pendingChats = new Set<string>();
  let pendingIndex = false;
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  const watchers: fs.FSWatcher[] = [];
  let poller: NodeJS.Timeout | undefined;

  const flush = () => {
    timer = undefined;
    if (disposed) return;
    const change = { chats: [...pendingChats].sort(), index: pendingIndex };
    pendingChats = new Set();
    pendingIndex = false;
    try {
      onChange(change);
    } catch (e) {
      options.log?.(`chat store watcher: ${(e as Error).message}`);
    }
  };
  const note = (chatId: string | undefined, index: boolean) => {
    if (disposed) return;
    if (chatId) pendingChats.add(chatId);
    if (index) pendingIndex = true;
    timer ??= setTimeout(flush, debounceMs);
  };

  const startPolling = () => {
    if (poller || disposed) return;
    for (const w of watchers.splice(0)) w.close();
    let last = snapshot(root);
    poller = setInterval(() => {
      const now = snapshot(root);
      if (now.index !== last.index) note(undefined, true);
      for (const id of new Set([...now.chats.keys(), ...last.chats.keys()])) if (now.chats.get(id) !== last.chats.get(id)) note(id, false);
      last = now;
    }, options.pollMs ?? 2000);
    poller.unref?.();
  };

  if (options.poll) startPolling();
  else {
    try {
      const onError = (e: Error) => {
        options.log?.(`chat store watcher failed (${e.message}); polling the folder instead`);
        startPolling();
      };
      const chats = fs.watch(chatsDir, { persistent: false }, (_event, name) => {
        const m = name ? CHAT_FILE.exec(String(name)) : null;
        // No file name (some platforms): something in the folder changed.
        if (m || !name) note(m?.[1], !name);
      });
      chats.on('error', onError);
      watchers.push(chats);
      const top = fs.watch(root, { persistent: false }, (_event, name) => {
        if (!name || String(name) === 'index.json') note(undefined, true);
      });
      top.on('error', onError);
      watchers.push(top);
    } catch (e) {
      options.log?.(`chat store watcher could not start (${(e as Error).message}); polling the folder instead`);
      startPolling();
    }
  }

  return {
    dispose() {
      disposed = true;
      if (timer) clearTimeout(timer);
      if (poller) clearInterval(poller);
      for (const w of watchers.splice(0)) w.close();
    },
  };
}

/** Sizes and mtimes of the index and the chat files (the polling fallback). */
function snapshot(root: string): { index: string; chats: Map<string, string> } {
  const stamp = (file: string): string => {
    try {
      const st = fs.statSync(file);
      return `${st.size}:${st.mtimeMs}`;
    } catch {
      return '-';
    }
  };
  const chats = new Map<string, string>();
  let names: string[] = [];
  try {
    names = fs.readdirSync(path.join(root, 'chats'));
  } catch {
    // Not created yet.
  }
  for (const name of names) {
    const m = CHAT_FILE.exec(name);
    if (m) chats.set(m[1], stamp(path.join(root, 'chats', name)));
  }
  return { index: stamp(path.join(root, 'index.json')), chats };
}
