/**
 * Which level of the settings a `strata.*` value may come from. A cloned repository's settings
 * (workspace or folder level) are the attacker's: they may only add exclude patterns, and in
 * Restricted Mode they choose nothing that decides what is read, what is sent, or where it goes.
 * No vscode import: unit tests load this file in plain Node.
 */
import { SETTING_DEFAULTS, type SettingKey, type StrataSettings } from './configKeys';

/** The keys whose workspace values are ignored until the workspace is trusted. */
export const RESTRICTED_KEYS: readonly SettingKey[] = (Object.keys(SETTING_DEFAULTS) as SettingKey[]).filter(
  (key) =>
    key === 'provider' ||
    key === 'model' ||
    // A window a repository sets could make Strata send more than the server holds.
    key === 'models' ||
    key === 'baseUrl' ||
    key === 'instructions' ||
    key === 'instructionsFiles' ||
    // Each ping is billed, and the cost settings decide how often and at what price: a cloned
    // repository must not turn on spending or set its price. The timeout and the budget shape
    // every request (a 1-second timeout breaks them all).
    key.startsWith('cache.') ||
    key === 'prices' ||
    key === 'anthropicCacheTtl' ||
    key === 'requestTimeoutSeconds' ||
    key.startsWith('budget.') ||
    // The window Ollama is asked to hold sizes its memory on the user's machine.
    key.startsWith('ollama.') ||
    key.startsWith('context.') ||
    key.startsWith('tools.'),
);

/** The levels of one setting, as `WorkspaceConfiguration.inspect` reports them. */
export interface InspectedSetting<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

/** Where a value in force comes from: the extension's default, the user's own settings, or the workspace's. */
export type SettingOrigin = 'default' | 'user' | 'workspace';

export interface EffectiveSetting<T> {
  value: T;
  origin: SettingOrigin;
  /** The workspace set this key, and its value is not in force (Restricted Mode). */
  ignored: boolean;
}

function isStringList(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Patterns of every level, defaults first, each once. A level that is not a list of strings adds nothing. */
function unionOfExcludes(levels: readonly unknown[]): string[] {
  const out = new Set<string>();
  for (const level of levels) if (isStringList(level)) for (const pattern of level) out.add(pattern);
  return [...out];
}

/**
 * The value in force for `key`. `strata.context.exclude` is the union of every level (a workspace's
 * `[]` removes nothing); any other key takes the most specific level it may come from.
 */
export function effectiveSetting<K extends SettingKey>(
  key: K,
  inspected: InspectedSetting<StrataSettings[K]> | undefined,
  trusted: boolean,
): EffectiveSetting<StrataSettings[K]> {
  const levels = inspected ?? {};
  const fromWorkspace = levels.workspaceFolderValue !== undefined ? levels.workspaceFolderValue : levels.workspaceValue;
  const workspaceAllowed = trusted || !RESTRICTED_KEYS.includes(key);
  const ignored = fromWorkspace !== undefined && !workspaceAllowed;
  if (key === 'context.exclude') {
    const workspaceLevels = workspaceAllowed ? [levels.workspaceValue, levels.workspaceFolderValue] : [];
    const value = unionOfExcludes([SETTING_DEFAULTS['context.exclude'], levels.defaultValue, levels.globalValue, ...workspaceLevels]);
    const addsPatterns = workspaceLevels.some((l) => isStringList(l) && l.length > 0);
    const origin: SettingOrigin = addsPatterns ? 'workspace' : levels.globalValue !== undefined ? 'user' : 'default';
    return { value: value as unknown as StrataSettings[K], origin, ignored };
  }
  if (fromWorkspace !== undefined && workspaceAllowed) return { value: fromWorkspace, origin: 'workspace', ignored };
  if (levels.globalValue !== undefined) return { value: levels.globalValue, origin: 'user', ignored };
  return { value: levels.defaultValue !== undefined ? levels.defaultValue : SETTING_DEFAULTS[key], origin: 'default', ignored };
}

/**
 * The sentence the panel's Restricted Mode notice adds for the workspace's settings files the scan
 * could not read (too large, not a file, unreadable, not JSON with comments): each named, with why.
 */
export function unreadSettingsSentence(files: readonly { label: string; why: string }[]): string {
  if (files.length === 0) return '';
  const named = files.map((f) => `${f.label} (${f.why})`).join('; ');
  return `Strata did not read ${named}, so this notice may not name every setting of ${files.length === 1 ? 'that file' : 'those files'} that is ignored.`;
}

/** The sentence the panel's Restricted Mode notice adds when workspace values were ignored. */
export function ignoredSettingsSentence(keys: readonly SettingKey[]): string {
  if (keys.length === 0) return '';
  const names = keys.map((k) => `strata.${k}`).join(', ');
  return `This workspace's settings for ${names} are ignored until you trust it; your own settings apply.`;
}
