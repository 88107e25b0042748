/**
 * The question commands that write, import or accept put to the user even when they are run with
 * arguments: another extension, a keybinding or a link can run a command with any argument, so an
 * argument chooses the file but never stands in for the user's yes. The palette, the menus and the
 * tests all pass through `ask`; the integration suite answers in the user's place.
 */
import * as vscode from 'vscode';

export interface ConsentQuestion {
  action: 'export' | 'import';
  /** The file written or read, as the user would recognise it. */
  target: string;
}

async function askWithModal(q: ConsentQuestion): Promise<boolean> {
  const yes = q.action === 'export' ? vscode.l10n.t('Export') : vscode.l10n.t('Import');
  const message =
    q.action === 'export'
      ? vscode.l10n.t('Export this chat to {0}? The file is overwritten if it exists.', q.target)
      : vscode.l10n.t('Import the chat in {0}? It becomes a new chat in this workspace.', q.target);
  const answer = await vscode.window.showWarningMessage(message, { modal: true }, yes);
  return answer === yes;
}

export class CommandConsent {
  ask: (question: ConsentQuestion) => Promise<boolean> = askWithModal;

  /** The target as shown: workspace-relative when inside a folder, else the full path. */
  static label(uri: vscode.Uri): string {
    return uri.scheme === 'file' ? vscode.workspace.asRelativePath(uri, true) : uri.toString(true);
  }
}
