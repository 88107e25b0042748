/**
 * Token counts of texts a chat's requests carried, by sha256 (its first 32 hex digits): a cache
 * beside the chat (`counts/<id>.jsonl`), so that a window opening the chat does not tokenize its whole
 * history again before its first meter. One line per turn, appended; never part of the chat's state
 * (deleting the file loses nothing but time). Chat ids are validated by the caller.
 */
import * as fs from 'fs';
import * as path from 'path';
import { isObj } from '../../common/guards';

/** A token-count key: the first 32 hex digits of the text's sha256. */
const COUNT_KEY = /^[0-9a-f]{32}$/;
/** A counts file larger than this is not read (a 1,000-turn chat's is about 0.4 MB). */
const MAX_COUNTS_BYTES = 64 * 1024 * 1024;

export class TokenCountCache {
  constructor(readonly dir: string) {}

  private pathOf(id: string): string {
    return path.join(this.dir, `${id}.jsonl`);
  }

  /** Appends a turn's counts. Returns false when they could not be written (the turn is saved anyway). */
  append(id: string, counter: string, counts: readonly (readonly [string, number])[]): boolean {
    const valid = counts.filter(([k, n]) => COUNT_KEY.test(k) && Number.isInteger(n) && n >= 0);
    if (valid.length === 0) return true;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      // One write of a whole line with O_APPEND: another window's lines never interleave with it. It
      // starts with a newline too, so a line torn by a crash never runs into the next one.
      fs.appendFileSync(this.pathOf(id), '\n' + JSON.stringify({ counter, counts: valid }) + '\n');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The counts saved for a chat by tokenizers like `counter` (an encoding and its guard settings:
   * counts of another are not these), empty when none; a damaged line is skipped.
   */
  load(id: string, counter: string): Map<string, number> {
    const out = new Map<string, number>();
    let text: string;
    try {
      const file = this.pathOf(id);
      if (fs.statSync(file).size > MAX_COUNTS_BYTES) return out;
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return out;
    }
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        continue;
      }
      if (!isObj(v) || v.counter !== counter || !Array.isArray(v.counts)) continue;
      for (const e of v.counts) {
        if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && COUNT_KEY.test(e[0]) && Number.isInteger(e[1]) && e[1] >= 0)
          out.set(e[0], e[1]);
      }
    }
    return out;
  }

  /** Removes a chat's counts (the chat was deleted). */
  remove(id: string): void {
    fs.rmSync(this.pathOf(id), { force: true });
  }
}
