import * as vscode from 'vscode';
import { CONFIG_SECTION, SETTING_DEFAULTS, SETTING_KEYS, type SettingKey, type StrataSettings } from './configKeys';
import {
  effectiveSetting,
  ignoredSettingsSentence,
  RESTRICTED_KEYS,
  unreadSettingsSentence,
  type EffectiveSetting,
} from './settingsPolicy';
import type { UnreadSettingsFile } from './settingsFileKeys';

/** Set by the integration suite only: the harness opens its workspace trusted. */
let restrictedModeForTesting: boolean | undefined;

/** Makes the settings read as in Restricted Mode (true), trusted (false), or as the editor says (undefined). */
export function simulateRestrictedMode(restricted: boolean | undefined): void {
  restrictedModeForTesting = restricted;
  readThisTask.clear();
}

/**
 * Settings read during the current synchronous run, by key. Reading one asks the editor to merge
 * every configuration level, and a panel refresh over a long chat asks for the same few keys once per
 * message; nothing can change a setting before the run ends (a change arrives as a task of its own),
 * so each key is read once per run and forgotten when it ends.
 */
const readThisTask = new Map<SettingKey, EffectiveSetting<unknown>>();
let clearScheduled = false;

function rememberForThisTask<K extends SettingKey>(key: K, value: EffectiveSetting<StrataSettings[K]>): void {
  readThisTask.set(key, value);
  if (clearScheduled) return;
  clearScheduled = true;
  queueMicrotask(() => {
    clearScheduled = false;
    readThisTask.clear();
  });
}

/** Whether the workspace is trusted, so its settings and instruction files apply. */
export function workspaceTrusted(): boolean {
  return restrictedModeForTesting === undefined ? vscode.workspace.isTrusted : !restrictedModeForTesting;
}

/**
 * A `strata.*` setting in force and where it comes from, read level by level so that a workspace
 * can only add exclude patterns and, untrusted, chooses nothing (settingsPolicy.ts).
 */
export function settingInForce<K extends SettingKey>(key: K, scope?: vscode.ConfigurationScope): EffectiveSetting<StrataSettings[K]> {
  if (scope === undefined) {
    const known = readThisTask.get(key) as EffectiveSetting<StrataSettings[K]> | undefined;
    if (known) return known;
  }
  const inspected = vscode.workspace.getConfiguration(CONFIG_SECTION, scope).inspect<StrataSettings[K]>(key);
  const value = effectiveSetting(key, inspected, workspaceTrusted());
  if (scope === undefined) rememberForThisTask(key, value);
  return value;
}

/**
 * The one place that reads `strata.*` settings (the manifest test fails on a
 * `getConfiguration` call anywhere else in src/), so every key read is a declared, typed key.
 */
export function readSetting<K extends SettingKey>(key: K, scope?: vscode.ConfigurationScope): StrataSettings[K] {
  return settingInForce(key, scope).value;
}

/** The value in the user's own settings (never the workspace's), else the default. */
export function userSetting<K extends SettingKey>(key: K): StrataSettings[K] {
  const inspected = vscode.workspace.getConfiguration(CONFIG_SECTION).inspect<StrataSettings[K]>(key);
  return effectiveSetting(key, { defaultValue: inspected?.defaultValue, globalValue: inspected?.globalValue }, true).value;
}

/**
 * The `strata.*` keys the workspace's settings files set, and the files the scan could not read
 * (workspaceSettingsFiles.ts). In Restricted Mode the editor hides the values of restricted keys
 * from `inspect()`, so only these say what the repository tried.
 */
let keysInWorkspaceFiles: readonly SettingKey[] = [];
let unreadWorkspaceFiles: readonly UnreadSettingsFile[] = [];

export function setWorkspaceSettingsScan(scan: { keys: readonly SettingKey[]; unread: readonly UnreadSettingsFile[] }): void {
  keysInWorkspaceFiles = scan.keys;
  unreadWorkspaceFiles = scan.unread;
}

/** The keys this workspace's settings set but that are not in force (Restricted Mode). */
export function ignoredWorkspaceSettings(): SettingKey[] {
  const trusted = workspaceTrusted();
  return SETTING_KEYS.filter(
    (key) => settingInForce(key).ignored || (!trusted && RESTRICTED_KEYS.includes(key) && keysInWorkspaceFiles.includes(key)),
  );
}

/** Writes a `strata.*` setting (user settings unless a target is given). */
export async function writeSetting<K extends SettingKey>(
  key: K,
  value: StrataSettings[K],
  target: vscode.ConfigurationTarget = vscode.ConfigurationTarget.Global,
): Promise<void> {
  readThisTask.clear();
  await vscode.workspace.getConfiguration(CONFIG_SECTION).update(key, value, target);
  readThisTask.clear();
}

/** Fires `listener` with the changed keys whenever any `strata.*` setting changes. */
export function onDidChangeSettings(listener: (changed: SettingKey[]) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (!event.affectsConfiguration(CONFIG_SECTION)) {
      return;
    }
    const changed = (Object.keys(SETTING_DEFAULTS) as SettingKey[]).filter((key) => event.affectsConfiguration(`${CONFIG_SECTION}.${key}`));
    if (changed.length > 0) {
      listener(changed);
    }
  });
}

/** The panel's Restricted Mode notice: what is not read, and which of the workspace's settings are ignored. */
export function restrictedModeNotice(): string {
  const ignored = ignoredSettingsSentence(ignoredWorkspaceSettings());
  const unread = unreadSettingsSentence(unreadWorkspaceFiles);
  return `Restricted Mode: project instruction files (strata.instructionsFiles) are not read until you trust this workspace.${ignored ? ` ${ignored}` : ''}${unread ? ` ${unread}` : ''}`;
}
