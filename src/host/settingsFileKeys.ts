/**
 * Which `strata.*` keys a settings file sets, read from its text. In Restricted Mode the editor
 * drops a workspace's values of restricted keys before an extension can inspect them, so the panel
 * learns what the repository tried from the files themselves: only the key names are used, never a
 * value. No vscode import: unit tests load this file in plain Node.
 */
import { CONFIG_SECTION, SETTING_KEYS, type SettingKey } from './configKeys';

/**
 * The text without comments and trailing commas (the editor's settings files are JSON with
 * comments), strings left as they are.
 */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every dotted path an object spells, nested objects included (`{"strata": {"model": …}}` is `strata.model`). */
function dottedPaths(value: Record<string, unknown>, prefix: string, out: Set<string>): void {
  for (const [key, child] of Object.entries(value)) {
    const full = prefix ? `${prefix}.${key}` : key;
    out.add(full);
    if (isObject(child)) dottedPaths(child, full, out);
  }
}

/**
 * The `strata.*` keys `text` sets: of a settings.json when `section` is undefined, else of the
 * object under `section` (a .code-workspace file's `settings`). Text that does not parse sets nothing.
 */
export function strataKeysInSettingsText(text: string, section?: string): SettingKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonComments(text));
  } catch {
    return [];
  }
  const settings = section === undefined ? parsed : isObject(parsed) ? parsed[section] : undefined;
  if (!isObject(settings)) return [];
  const paths = new Set<string>();
  dottedPaths(settings, '', paths);
  return SETTING_KEYS.filter((key) => paths.has(`${CONFIG_SECTION}.${key}`));
}
