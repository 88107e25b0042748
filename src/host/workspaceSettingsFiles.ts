import * as vscode from 'vscode';
import type { SettingKey } from './configKeys';
import { strataKeysInSettingsText } from './settingsFileKeys';

const FOLDER_SETTINGS = '.vscode/settings.json';

async function readText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** The `strata.*` keys the workspace's own settings files set: each folder's settings.json and a .code-workspace file's `settings`. */
async function keysInWorkspaceFiles(): Promise<SettingKey[]> {
  const found = new Set<SettingKey>();
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') {
    const text = await readText(file);
    if (text !== undefined) strataKeysInSettingsText(text, 'settings').forEach((k) => found.add(k));
  }
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const text = await readText(vscode.Uri.joinPath(folder.uri, FOLDER_SETTINGS));
    if (text !== undefined) strataKeysInSettingsText(text).forEach((k) => found.add(k));
  }
  return [...found];
}

/**
 * Keeps the list of `strata.*` keys the workspace's settings files set, for the Restricted Mode
 * notice: there the editor drops the restricted values before `inspect()` sees them, and changing
 * them fires no configuration event, so the files are read at start and whenever they change.
 * `onChange` runs after each new reading.
 */
export function watchWorkspaceSettingsFiles(onChange: (keys: readonly SettingKey[]) => void): vscode.Disposable {
  let generation = 0;
  const rescan = (): void => {
    const mine = ++generation;
    void keysInWorkspaceFiles().then((keys) => {
      if (mine === generation) onChange(keys);
    });
  };
  const watcher = vscode.workspace.createFileSystemWatcher(`**/${FOLDER_SETTINGS}`);
  const disposables: vscode.Disposable[] = [
    watcher,
    watcher.onDidChange(rescan),
    watcher.onDidCreate(rescan),
    watcher.onDidDelete(rescan),
    vscode.workspace.onDidChangeWorkspaceFolders(rescan),
    vscode.workspace.onDidChangeConfiguration(rescan),
  ];
  rescan();
  return vscode.Disposable.from(...disposables);
}
