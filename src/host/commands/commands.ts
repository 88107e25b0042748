import * as vscode from 'vscode';
import { DisposableStore, type IDisposable } from '../../common/lifecycle';
import { COMMAND_IDS, type CommandId } from './commandIds';

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * Registers every contributed command with its handler. A handler's failure is shown to the user
 * as one clear error message (not rethrown, which would add the editor's generic "command failed"
 * notification); the command then returns undefined. Every declared command must have a handler.
 */
export function registerCommands(handlers: Record<CommandId, CommandHandler>, log?: { error(message: string): void }): IDisposable {
  const store = new DisposableStore();
  for (const id of COMMAND_IDS) {
    const handler = handlers[id];
    if (!handler) throw new Error(`no handler for ${id}`);
    store.add(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          log?.error(`${id}: ${message}`);
          void vscode.window.showErrorMessage(`Strata: ${message}`);
          return undefined;
        }
      }),
    );
  }
  return store;
}
