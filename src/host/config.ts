import * as vscode from 'vscode';
import { CONFIG_SECTION, SETTING_DEFAULTS, type SettingKey, type StrataSettings } from './configKeys';

/**
 * The one place that reads `strata.*` settings (the manifest test fails on a
 * `getConfiguration` call anywhere else in src/), so every key read is a declared, typed key.
 */
export function readSetting<K extends SettingKey>(key: K, scope?: vscode.ConfigurationScope): StrataSettings[K] {
  return vscode.workspace.getConfiguration(CONFIG_SECTION, scope).get<StrataSettings[K]>(key, SETTING_DEFAULTS[key]);
}

/** Writes a `strata.*` setting (user settings unless a target is given). */
export async function writeSetting<K extends SettingKey>(
  key: K,
  value: StrataSettings[K],
  target: vscode.ConfigurationTarget = vscode.ConfigurationTarget.Global,
): Promise<void> {
  await vscode.workspace.getConfiguration(CONFIG_SECTION).update(key, value, target);
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
