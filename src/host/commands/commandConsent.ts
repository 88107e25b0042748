/**
 * The question commands that write, import or accept put to the user even when they are run with
 * arguments: another extension, a keybinding or a link can run a command with any argument, so an
 * argument chooses the file but never stands in for the user's yes (consentRules.ts decides when).
 * The palette, the menus and the tests all pass through `ask`; the integration suite answers in the
 * user's place.
 */
import * as vscode from 'vscode';
import type { ConsentQuestion } from './consentRules';

export type { ConsentQuestion } from './consentRules';

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

  /** The label of a command's file argument, or undefined when it has none (it shows a dialog). */
  static fileArgument(arg: unknown): string | undefined {
    return arg instanceof vscode.Uri ? CommandConsent.label(arg) : undefined;
  }

  /** Asks `question` when there is one; true when there is none or the user said yes. */
  async confirm(question: ConsentQuestion | undefined): Promise<boolean> {
    return question === undefined || (await this.ask(question));
  }
}
