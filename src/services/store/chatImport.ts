/**
 * An imported chat's one line and its file: the whole state as a delta from nothing, its digest and
 * where it came from, prepared in steps that yield (a long chat's export is megabytes), written to a
 * file of its own off the event loop, and renamed into place by the store under its lock. A window
 * opening the store removes such a file only once it is old enough to be abandoned.
 */
import * as fs from 'fs';
import * as path from 'path';
import { diffState } from '../../engine/stateCodec';
import { jsonStringifySteps } from '../../common/jsonSteps';
import type { TimeSlice } from '../timeSlice';
import { canonicalTextSteps, encodedDigest } from './chatChain';
import { CHAT_FORMAT, LINE_VERSION, type ChatLine } from './chatFormat';
import { parseChatExportSteps, type ParsedExport } from './markdownImport';

/** The start of the name of an imported chat's file while it is written, before it is renamed into place. */
const IMPORT_TEMP = 'import.tmp-';
/** How old an import's file must be before a window opening the store takes it for abandoned (another window may be writing it). */
const IMPORT_TEMP_GRACE_MS = 10 * 60_000;
let importFiles = 0;

/**
 * The one line of an imported chat, as steps (a long chat's line is megabytes of JSON): the whole
 * state as a delta from nothing, its digest, and where it came from. The text is what
 * `JSON.stringify` of that line gives, ending in a newline.
 */
export function* importLineSteps({ chat, full, turns }: Pick<ParsedExport, 'chat' | 'full' | 'turns'>): Generator<void, string, unknown> {
  const line: ChatLine = {
    format: CHAT_FORMAT,
    v: LINE_VERSION,
    turn: full.completedTurns,
    delta: diffState(undefined, full),
    stateHash: encodedDigest(full),
    imported: { from: chat.id, turns },
  };
  yield;
  return `${yield* jsonStringifySteps(line)}\n`;
}

/**
 * An export decoded and checked, and its line prepared, with the event loop given a turn every few
 * ms (see `ChatStore.importMarkdownSliced`).
 */
export async function parseImportSliced(
  text: string,
  isAllowedPath: (path: string) => boolean,
  slice: TimeSlice,
): Promise<{ parsed: ParsedExport; line: string }> {
  const steps = parseChatExportSteps(text, isAllowedPath);
  let r = steps.next();
  for (; !r.done; r = steps.next()) if (slice.due) await slice.pause();
  const parsed = r.value;
  for (const warm = canonicalTextSteps(parsed.full); !warm.next().done;) if (slice.due) await slice.pause();
  const line = importLineSteps(parsed);
  let l = line.next();
  for (; !l.done; l = line.next()) if (slice.due) await slice.pause();
  return { parsed, line: l.value };
}

/**
 * Writes an imported chat's line to a file of its own in the store's folder `root`, the write and its
 * fsync off the event loop (a long chat's line is megabytes); the store renames it into place.
 */
export async function writeImportFile(root: string, text: string, durable: boolean): Promise<string> {
  const file = path.join(root, `${IMPORT_TEMP}${process.pid}-${++importFiles}`);
  const handle = await fs.promises.open(file, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    if (durable) await handle.sync();
  } catch (e) {
    await handle.close();
    await fs.promises.rm(file, { force: true });
    throw e;
  }
  await handle.close();
  return file;
}

/** `name` in the store's folder is an import's file left by an interrupted import. */
export function abandonedImportFile(root: string, name: string): boolean {
  if (!name.startsWith(IMPORT_TEMP)) return false;
  try {
    return Date.now() - fs.statSync(path.join(root, name)).mtimeMs > IMPORT_TEMP_GRACE_MS;
  } catch {
    return false;
  }
}
