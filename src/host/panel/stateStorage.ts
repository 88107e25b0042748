import type * as vscode from 'vscode';

/** Everything Strata keeps in VS Code's mementos, one key → type map (never chats or keys: those live in the chat store and SecretStorage). */
interface WorkspaceStateKeys {
  /** The chat open in this workspace's panel, so a reloaded window opens the same one. */
  activeChatId: string;
}

/** Typed access to `ExtensionContext.workspaceState`. */
export class WorkspaceStateStore {
  constructor(private readonly memento: vscode.Memento) {}

  get<K extends keyof WorkspaceStateKeys>(key: K): WorkspaceStateKeys[K] | undefined {
    return this.memento.get<WorkspaceStateKeys[K]>(key);
  }

  set<K extends keyof WorkspaceStateKeys>(key: K, value: WorkspaceStateKeys[K] | undefined): Thenable<void> {
    return this.memento.update(key, value);
  }
}
