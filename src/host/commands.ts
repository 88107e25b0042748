import * as vscode from 'vscode';
import { DisposableStore, type IDisposable } from '../common/lifecycle';
import { COMMAND_IDS, type CommandId } from './commandIds';

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * Registers every contributed command: the given handler where one exists, otherwise a placeholder
 * that says the feature is not there yet. So nothing declared in package.json is ever unregistered.
 */
export function registerCommands(handlers: Partial<Record<CommandId, CommandHandler>>): IDisposable {
  const store = new DisposableStore();
  for (const id of COMMAND_IDS) {
    store.add(vscode.commands.registerCommand(id, handlers[id] ?? (() => showPlaceholder(id))));
  }
  return store;
}

function showPlaceholder(id: CommandId): void {
  void vscode.window.showInformationMessage(vscode.l10n.t('Strata: {0} arrives in a later version', id));
}
