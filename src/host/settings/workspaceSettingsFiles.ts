import * as vscode from 'vscode';
import { scanSettingsFiles, type SettingsFileIo, type SettingsFileRef, type SettingsFilesScan } from './settingsFileKeys';

const FOLDER_SETTINGS = '.vscode/settings.json';

const io: SettingsFileIo<vscode.Uri> = {
  async stat(uri) {
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      // A link is followed by stat; a folder, a FIFO or a device is not a settings file to read.
      return { size: stat.size, regular: (stat.type & vscode.FileType.File) !== 0 };
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === 'FileNotFound' || code === 'FileNotADirectory') return 'missing';
      throw e;
    }
  },
  read: (uri) => Promise.resolve(vscode.workspace.fs.readFile(uri)),
};

/** The workspace's own settings files: a .code-workspace file's `settings`, and each folder's settings.json. */
function settingsFiles(): SettingsFileRef<vscode.Uri>[] {
  const files: SettingsFileRef<vscode.Uri>[] = [];
  const file = vscode.workspace.workspaceFile;
  if (file && file.scheme !== 'untitled') files.push({ file, label: file.path.split('/').pop() ?? file.path, section: 'settings' });
  const folders = vscode.workspace.workspaceFolders ?? [];
  for (const folder of folders) {
    files.push({
      file: vscode.Uri.joinPath(folder.uri, FOLDER_SETTINGS),
      label: folders.length > 1 ? `${folder.name}/${FOLDER_SETTINGS}` : FOLDER_SETTINGS,
    });
  }
  return files;
}

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Keeps the list of `strata.*` keys the workspace's settings files set, and of the files that could
 * not be read, for the Restricted Mode notice: there the editor drops the restricted values before
 * `inspect()` sees them, and changing them fires no configuration event, so the files are read at
 * start and whenever they change. The files are the repository's: the scan caps their size and
 * pauses between steps (settingsFileKeys.ts), and a newer change stops an older scan.
 * `onChange` runs after each complete reading.
 */
export function watchWorkspaceSettingsFiles(onChange: (scan: SettingsFilesScan) => void): vscode.Disposable {
  let generation = 0;
  const rescan = (): void => {
    const mine = ++generation;
    const cancelled = (): boolean => mine !== generation;
    void scanSettingsFiles(settingsFiles(), io, { pause, cancelled }).then(
      (scan) => {
        if (scan && !cancelled()) onChange(scan);
      },
      () => undefined,
    );
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
  return vscode.Disposable.from(...disposables, { dispose: () => void ++generation });
}
