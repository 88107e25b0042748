/**
 * Which `strata.*` keys a settings file sets, read from its text. In Restricted Mode the editor
 * drops a workspace's values of restricted keys before an extension can inspect them, so the panel
 * learns what the repository tried from the files themselves: only the key names are used, never a
 * value. No vscode import: unit tests load this file in plain Node.
 *
 * The files are the repository's, so the scan is built for hostile ones: a file over
 * {@link SETTINGS_FILE_MAX_BYTES} is not read; the text is read by a scanner with its own stack (a
 * deeply nested file cannot overflow the call stack) that keeps only the key paths that can spell a
 * `strata.*` key; and {@link scanSettingsFiles} works in steps of {@link SCAN_STEP_CHARS} characters,
 * pausing between them, so the extension host answers other work while a large file is read.
 */
import { CONFIG_SECTION, SETTING_KEYS, type SettingKey } from './configKeys';

/** Larger settings files are not read (the editor's own are a few kilobytes). */
export const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

/** Characters scanned between two pauses (about a millisecond of work). */
export const SCAN_STEP_CHARS = 64 * 1024;

const FULL_KEYS = new Map<string, SettingKey>(SETTING_KEYS.map((k) => [`${CONFIG_SECTION}.${k}`, k]));

/** Every dotted path a full key starts with (the section, then each longer head of a dotted key): only objects there are followed. */
const KEY_PREFIXES = new Set<string>(
  [...FULL_KEYS.keys()].flatMap((full) => {
    const parts = full.split('.');
    return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

export type SettingsTextScan = { ok: true; keys: SettingKey[] } | { ok: false; problem: string };

/**
 * What the scanner accepts next: `value` (the top level, after `:`, in an array after `[` or `,`);
 * `commaOrEnd` (after a value inside a container); `keyOrEnd` (in an object after `{` or `,`: a
 * trailing comma is allowed, as in the editor's files); `colon` (after a key); `done` (after the
 * top-level value: nothing more).
 */
type Expect = 'value' | 'commaOrEnd' | 'keyOrEnd' | 'colon' | 'done';

/** The pending path of a workspace file's top-level object (no key path spells this). */
const TOP_OF_WORKSPACE_FILE = '\0';

const OBJECT = 0;
const ARRAY = 1;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0xfeff;
}

function isDelimiter(c: number): boolean {
  // whitespace, { } [ ] : , " /
  return isSpace(c) || c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x3a || c === 0x2c || c === 0x22 || c === 0x2f;
}

/**
 * A resumable scanner of JSON with comments and trailing commas (the editor's settings files):
 * `step` reads about `budget` characters and says whether it has finished.
 */
class KeyScanner {
  private pos = 0;
  private expect: Expect = 'value';
  /** The kind of each open container, outermost first. */
  private readonly kinds: number[] = [];
  /**
   * The dotted path of each open object that can still spell a key, outermost first; deeper
   * containers follow none. `null` is a workspace file's top level, where only `section` leads on.
   */
  private readonly paths: (string | null)[] = [];
  /** The path the next value gets when it is an object, or undefined when it follows none. */
  private pendingPath: string | undefined;
  private readonly found = new Set<SettingKey>();
  private problem: string | undefined;

  constructor(
    private readonly text: string,
    private readonly section: string | undefined,
  ) {
    this.pendingPath = section === undefined ? '' : TOP_OF_WORKSPACE_FILE;
  }

  get result(): SettingsTextScan {
    if (this.problem !== undefined) return { ok: false, problem: this.problem };
    return { ok: true, keys: SETTING_KEYS.filter((k) => this.found.has(k)) };
  }

  private fail(message: string, at = this.pos): false {
    let line = 1;
    for (let i = 0; i < at && i < this.text.length; i++) if (this.text.charCodeAt(i) === 0x0a) line++;
    this.problem = `${message} on line ${line}`;
    return false;
  }

  /** Reads about `budget` characters; true when the text is read (or found wrong). */
  step(budget: number): boolean {
    const text = this.text;
    const stop = Math.min(text.length, this.pos + budget);
    while (this.pos < stop) {
      if (!this.token()) return true;
    }
    if (this.pos < text.length) return false;
    // Only whitespace and comments (an empty settings file) set nothing and are not wrong.
    const empty = this.expect === 'value' && this.kinds.length === 0;
    if (this.problem === undefined && this.expect !== 'done' && !empty) this.fail('the text ends early');
    return true;
  }

  /** One token (whitespace and comments skipped); false when the text is wrong. */
  private token(): boolean {
    const text = this.text;
    const c = text.charCodeAt(this.pos);
    if (isSpace(c)) {
      this.pos++;
      return true;
    }
    if (c === 0x2f) return this.comment();
    if (this.expect === 'done') return this.fail('text after the end');
    switch (c) {
      case 0x7b: // {
        if (this.expect !== 'value') return this.fail('an unexpected "{"');
        this.open(OBJECT);
        this.expect = 'keyOrEnd';
        return true;
      case 0x5b: // [
        if (this.expect !== 'value') return this.fail('an unexpected "["');
        this.open(ARRAY);
        return true;
      case 0x7d: // }
      case 0x5d: {
        // ]
        const kind = c === 0x7d ? OBJECT : ARRAY;
        const top = this.kinds[this.kinds.length - 1];
        const closes =
          top === kind && (this.expect === 'commaOrEnd' || (kind === OBJECT ? this.expect === 'keyOrEnd' : this.expect === 'value'));
        if (!closes) return this.fail(`an unexpected "${c === 0x7d ? '}' : ']'}"`);
        this.kinds.pop();
        if (this.paths.length > this.kinds.length) this.paths.pop();
        this.pos++;
        this.afterValue();
        return true;
      }
      case 0x3a: // :
        if (this.expect !== 'colon') return this.fail('an unexpected ":"');
        this.pos++;
        this.expect = 'value';
        return true;
      case 0x2c: // ,
        if (this.expect !== 'commaOrEnd') return this.fail('an unexpected ","');
        this.pos++;
        this.expect = this.kinds[this.kinds.length - 1] === OBJECT ? 'keyOrEnd' : 'value';
        return true;
      case 0x22: {
        // "
        const s = this.string();
        if (s === undefined) return false;
        if (this.expect === 'keyOrEnd') {
          this.key(s);
          this.expect = 'colon';
          return true;
        }
        if (this.expect !== 'value') return this.fail('an unexpected string');
        this.afterValue();
        return true;
      }
      default:
        return this.literal();
    }
  }

  private open(kind: number): void {
    // A container follows a key path only when its parent does and the key can lead to one.
    const follows = kind === OBJECT && this.paths.length === this.kinds.length && this.pendingPath !== undefined;
    this.kinds.push(kind);
    if (follows) this.paths.push(this.pendingPath === TOP_OF_WORKSPACE_FILE ? null : (this.pendingPath as string));
    this.pendingPath = undefined;
    this.pos++;
    if (kind === ARRAY) this.expect = 'value';
  }

  private afterValue(): void {
    this.pendingPath = undefined;
    this.expect = this.kinds.length === 0 ? 'done' : 'commaOrEnd';
  }

  /** Notes a key of the innermost object, and whether an object under it can spell a key. */
  private key(name: string): void {
    this.pendingPath = undefined;
    if (this.paths.length !== this.kinds.length) return;
    const parent = this.paths[this.paths.length - 1];
    if (parent === null) {
      if (name === this.section) this.pendingPath = '';
      return;
    }
    const full = parent ? `${parent}.${name}` : name;
    const setting = FULL_KEYS.get(full);
    if (setting !== undefined) this.found.add(setting);
    if (KEY_PREFIXES.has(full)) this.pendingPath = full;
  }

  /** The string starting at `pos`, decoded; undefined when it is not a JSON string. */
  private string(): string | undefined {
    const text = this.text;
    const start = this.pos;
    let i = start + 1;
    let escaped = false;
    for (;;) {
      if (i >= text.length) {
        this.fail('a string that is not closed', start);
        return undefined;
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) {
        this.fail('a line break or control character inside a string', i);
        return undefined;
      }
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    this.pos = i + 1;
    if (!escaped) return text.slice(start + 1, i);
    try {
      return JSON.parse(text.slice(start, i + 1)) as string;
    } catch {
      this.fail('a string with a wrong escape', start);
      return undefined;
    }
  }

  /** `true`, `false`, `null` or a number. */
  private literal(): boolean {
    const text = this.text;
    const start = this.pos;
    let i = start;
    while (i < text.length && !isDelimiter(text.charCodeAt(i))) i++;
    const word = text.slice(start, i);
    if (this.expect !== 'value' || (word !== 'true' && word !== 'false' && word !== 'null' && !NUMBER.test(word))) {
      return this.fail(`an unexpected ${word.length > 0 && word.length <= 20 ? `"${word}"` : 'character'}`, start);
    }
    this.pos = i;
    this.afterValue();
    return true;
  }

  /** A `//` or `/* *\/` comment. */
  private comment(): boolean {
    const text = this.text;
    const next = text.charCodeAt(this.pos + 1);
    if (next === 0x2f) {
      const end = text.indexOf('\n', this.pos + 2);
      this.pos = end < 0 ? text.length : end + 1;
      return true;
    }
    if (next === 0x2a) {
      const end = text.indexOf('*/', this.pos + 2);
      if (end < 0) return this.fail('a comment that is not closed');
      this.pos = end + 2;
      return true;
    }
    return this.fail('an unexpected "/"');
  }
}

/**
 * What `text` says: the `strata.*` keys it sets (of a settings.json when `section` is undefined,
 * else of the object under `section`, a .code-workspace file's `settings`), or why it is not
 * JSON with comments. Runs to the end in one go; {@link scanSettingsTextInSteps} pauses.
 */
export function scanSettingsText(text: string, section?: string): SettingsTextScan {
  const scanner = new KeyScanner(text, section);
  while (!scanner.step(SCAN_STEP_CHARS));
  return scanner.result;
}

/** The `strata.*` keys `text` sets (see {@link scanSettingsText}); text that does not parse sets nothing. */
export function strataKeysInSettingsText(text: string, section?: string): SettingKey[] {
  const scan = scanSettingsText(text, section);
  return scan.ok ? scan.keys : [];
}

export interface StepOptions {
  /** Resolves when other work has had its turn (the host passes a `setImmediate`). */
  pause(): Promise<void>;
  /** True when the result is no longer wanted: the scan stops at its next pause. */
  cancelled?(): boolean;
  /** Characters per step (default {@link SCAN_STEP_CHARS}). */
  stepChars?: number;
}

/** {@link scanSettingsText} in steps with a pause between them; undefined when cancelled. */
export async function scanSettingsTextInSteps(
  text: string,
  section: string | undefined,
  options: StepOptions,
): Promise<SettingsTextScan | undefined> {
  const scanner = new KeyScanner(text, section);
  const budget = options.stepChars ?? SCAN_STEP_CHARS;
  while (!scanner.step(budget)) {
    await options.pause();
    if (options.cancelled?.()) return undefined;
  }
  return scanner.result;
}

/** One settings file of the workspace: how the notice names it, and where its settings are. */
export interface SettingsFileRef<F> {
  file: F;
  /** As the Restricted Mode notice names it (`.vscode/settings.json`, `app/.vscode/settings.json`). */
  label: string;
  /** The object holding the settings (`settings` in a .code-workspace file); the top level when undefined. */
  section?: string;
}

export interface SettingsFileIo<F> {
  /** The file's size, whether it is a regular file, or `missing`; throws when it cannot be asked. */
  stat(file: F): Promise<{ size: number; regular: boolean } | 'missing'>;
  read(file: F): Promise<Uint8Array>;
}

/** A settings file the scan could not read, and why, for the notice. */
export interface UnreadSettingsFile {
  label: string;
  why: string;
}

export interface SettingsFilesScan {
  keys: SettingKey[];
  unread: UnreadSettingsFile[];
}

/**
 * The keys the workspace's settings files set, and the files that could not be read: missing files
 * are skipped; a folder or device, a file over `maxBytes`, one that cannot be read and one that is
 * not JSON with comments are named with the reason. Undefined when cancelled.
 */
export async function scanSettingsFiles<F>(
  files: readonly SettingsFileRef<F>[],
  io: SettingsFileIo<F>,
  options: StepOptions & { maxBytes?: number },
): Promise<SettingsFilesScan | undefined> {
  const maxBytes = options.maxBytes ?? SETTINGS_FILE_MAX_BYTES;
  const found = new Set<SettingKey>();
  const unread: UnreadSettingsFile[] = [];
  const tooLarge = (label: string, size: number) =>
    unread.push({
      label,
      why: `it is ${size.toLocaleString('en-US')} bytes, over the ${maxBytes.toLocaleString('en-US')}-byte limit for a settings file`,
    });
  for (const ref of files) {
    let stat: Awaited<ReturnType<SettingsFileIo<F>['stat']>>;
    try {
      stat = await io.stat(ref.file);
    } catch {
      unread.push({ label: ref.label, why: 'it could not be read' });
      continue;
    }
    if (stat === 'missing') continue;
    if (!stat.regular) {
      unread.push({ label: ref.label, why: 'it is not a regular file' });
      continue;
    }
    if (stat.size > maxBytes) {
      tooLarge(ref.label, stat.size);
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await io.read(ref.file);
    } catch {
      unread.push({ label: ref.label, why: 'it could not be read' });
      continue;
    }
    // The file may have grown between the size check and the read.
    if (bytes.length > maxBytes) {
      tooLarge(ref.label, bytes.length);
      continue;
    }
    if (options.cancelled?.()) return undefined;
    const scan = await scanSettingsTextInSteps(new TextDecoder().decode(bytes), ref.section, options);
    if (scan === undefined) return undefined;
    if (scan.ok) scan.keys.forEach((k) => found.add(k));
    else unread.push({ label: ref.label, why: `it is not valid JSON with comments (${scan.problem})` });
  }
  return { keys: SETTING_KEYS.filter((k) => found.has(k)), unread };
}
