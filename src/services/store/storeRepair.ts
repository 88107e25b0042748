/**
 * What a window opening the store puts right, under the store lock: files left by an interrupted
 * index write or import, and an index behind the chat files (a crash may leave it so): chats missing
 * from it are listed again, a damaged one is moved aside.
 */
import * as fs from 'fs';
import * as path from 'path';
import { safeReaddir } from './atomicFile';
import { abandonedImportFile } from './chatImport';
import { CHAT_FILE, titleFrom } from './chatFormat';
import { ChatCorrupt } from './chatHead';
import type { StoreParts } from './turnAppend';

/** Removes what interrupted writes left in the store's folder `root`; says so in `warnings`. */
export function removeStaleTemps(root: string, warnings: string[]): void {
  for (const name of safeReaddir(root)) {
    if (name.startsWith('index.json.tmp-')) {
      fs.rmSync(path.join(root, name), { force: true });
      warnings.push(`removed ${name} left by an interrupted index write`);
    } else if (abandonedImportFile(root, name)) {
      fs.rmSync(path.join(root, name), { force: true });
      warnings.push(`removed ${name} left by an interrupted import`);
    }
  }
}

/** Makes the index list exactly the chat files present in `chatsDir`. */
export function reconcileIndex(s: StoreParts, chatsDir: string, warnings: string[]): void {
  const index = s.index.read();
  const files = new Set<string>();
  for (const name of fs.readdirSync(chatsDir)) {
    const m = CHAT_FILE.exec(name);
    if (m) files.add(m[1]);
  }
  let changed = false;
  const kept = index.filter((c) => files.has(c.id));
  if (kept.length !== index.length) changed = true;
  const known = new Set(kept.map((c) => c.id));
  for (const id of [...files].sort()) {
    if (known.has(id)) continue;
    const st = fs.statSync(s.chatPath(id));
    let title = 'Recovered chat';
    let turns = 0;
    try {
      const head = s.readHead(id);
      const enc = head.chain?.encoded();
      turns = enc?.completedTurns ?? 0;
      title = titleFrom(enc?.turns[0]?.userText ?? '');
    } catch (e) {
      // Corrupt: moved aside (open holds the lock).
      warnings.push((e instanceof ChatCorrupt ? s.corrupt(id, e.message) : (e as Error)).message);
      continue;
    }
    kept.push({ id, title, turns, createdAt: st.mtime.toISOString(), updatedAt: st.mtime.toISOString() });
    changed = true;
  }
  if (changed || !fs.existsSync(s.index.file)) s.index.write(kept);
}
