/**
 * Add Context…: the composer's button and the command open one quick pick of what can be attached
 * — files (the `@` picker's entries), workspace symbols (as their lines), a folder's files, the
 * lines Git sees changed. The host lists and decides; every entry is attached through the attach
 * path every attachment takes (isolation, excludes, size), and a group is bounded by the budget.
 */
import * as vscode from 'vscode';
import type { MentionView } from '../../protocol/mentions';
import type { ChipView, MeterView } from '../../protocol/messages';
import type { ChatSession } from '../../services/chatSession';
import type { Rejection } from '../../engine/isolation';
import { attachWithinRoom, filesUnder, foldersOf, groupSummary, MAX_GROUP_FILES, type GroupResult } from './contextGroups';
import { gitApi, gitChangeSpecs } from './gitChanges';
import { HostWorkspace } from './hostWorkspace';
import { MAX_LISTED_FILES, type MentionSource } from './mentionSource';

export interface AddContextDeps {
  workspace: Pick<HostWorkspace, 'listFiles' | 'uriOf'>;
  mentions: Pick<MentionSource, 'list' | 'attach'>;
  session: Pick<ChatSession, 'attach' | 'chips' | 'removeChip' | 'meter'>;
  /** `showAttached`: the chips added and the refusals with their reasons, as for any attach; `showBanner`: what a group left out. */
  controller: {
    showAttached(added: readonly ChipView[], refused: readonly Rejection[]): void;
    showBanner(severity: 'info', message: string): unknown;
  };
  /** Shows the chat, where the chips appear. */
  view: { reveal(): Promise<void> };
}

/** What a group attach did, and what it said. */
export interface GroupOutcome extends GroupResult {
  summary: string;
}

type Source = 'files' | 'symbols' | 'folder' | 'git';

const SOURCES: (vscode.QuickPickItem & { source: Source })[] = [
  { source: 'files', label: '$(file) Files…', description: 'a workspace file, an open editor or the selection, as @ offers them' },
  { source: 'symbols', label: '$(symbol-class) Symbols…', description: "a workspace symbol's lines (a function, a class, a type)" },
  { source: 'folder', label: '$(folder) Folder…', description: "a folder's files, as many as the budget has room for" },
  { source: 'git', label: '$(git-compare) Git Changes', description: 'the lines changed in the working tree, against HEAD' },
];

/** Tokens the budget has left for what is attached next. */
function room(meter: MeterView): number {
  return Math.max(0, meter.budget - meter.used);
}

export class AddContext {
  constructor(private readonly deps: AddContextDeps) {}

  /**
   * The commands: Add Context… (its argument, a source's name, skips the first pick: a keybinding's
   * `args`, or `"git"` to attach the changes at once) and the Explorer's Attach Folder to Strata.
   */
  handlers(): Record<'strata.addContext' | 'strata.attachFolderToStrata', (arg?: unknown) => Promise<unknown>> {
    return {
      'strata.addContext': (arg) => this.pick(SOURCES.find((s) => s.source === arg)?.source),
      'strata.attachFolderToStrata': (arg) => this.attachFolderOf(arg),
    };
  }

  /** The quick pick of sources (unless `given`), then the source's own pick. */
  async pick(given?: Source): Promise<GroupOutcome | undefined> {
    const source =
      given ??
      (await vscode.window.showQuickPick(SOURCES, { title: 'Add Context', placeHolder: 'What to attach to the next message' }))?.source;
    if (!source) return;
    switch (source) {
      case 'files':
        return this.pickMention('Add a file', 'Type a file name', (q) => q, ['file', 'editor', 'selection', 'openEditors']);
      case 'symbols':
        return this.pickMention('Add a symbol', 'Type a symbol name (a function, a class, a type)', (q) => `#${q}`, ['symbol']);
      case 'folder':
        return this.pickFolder();
      case 'git':
        await this.deps.view.reveal();
        return this.attachGitChanges();
    }
  }

  /** A quick pick over the `@` picker's entries for what is typed (the host lists them, through the isolation). */
  private async pickMention(
    title: string,
    placeholder: string,
    query: (typed: string) => string,
    kinds: MentionView['kind'][],
  ): Promise<undefined> {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { view: MentionView }>();
    qp.title = title;
    qp.placeholder = placeholder;
    qp.matchOnDescription = true;
    let asked = 0;
    const update = async (typed: string) => {
      const n = ++asked;
      qp.busy = true;
      try {
        const views = await this.deps.mentions.list(query(typed));
        if (n !== asked) return;
        // The host ranked them already: the quick pick keeps that order and shows every one.
        qp.items = views
          .filter((v) => kinds.includes(v.kind))
          .map((v) => ({ label: v.label, description: v.detail, view: v, alwaysShow: true }));
      } finally {
        if (n === asked) qp.busy = false;
      }
    };
    const picked = await new Promise<MentionView | undefined>((resolve) => {
      qp.onDidChangeValue((v) => void update(v));
      qp.onDidAccept(() => {
        resolve(qp.selectedItems[0]?.view);
        qp.hide();
      });
      qp.onDidHide(() => resolve(undefined));
      qp.show();
      void update('');
    });
    qp.dispose();
    if (!picked) return undefined;
    await this.deps.view.reveal();
    await this.deps.mentions.attach(picked.ref);
    return undefined;
  }

  private async pickFolder(): Promise<GroupOutcome | undefined> {
    const listing = await this.deps.workspace.listFiles('**/*', MAX_LISTED_FILES);
    const folders = foldersOf(listing.paths);
    if (folders.length === 0) throw new Error('The workspace has no folder with files Strata may read.');
    const pick = await vscode.window.showQuickPick(
      folders.map((f) => ({ label: `$(folder) ${f}`, description: `${filesUnder(listing.paths, f).length} files`, folder: f })),
      { title: 'Add a folder', placeHolder: 'Its files are attached as far as the budget has room' },
    );
    if (!pick) return undefined;
    await this.deps.view.reveal();
    return this.attachFolder(pick.folder);
  }

  /** The Explorer's "Attach Folder to Strata": the right-clicked folder. */
  async attachFolderOf(arg: unknown): Promise<GroupOutcome> {
    const path = arg instanceof vscode.Uri ? HostWorkspace.pathOf(arg) : undefined;
    if (!path || path.startsWith('untitled:'))
      throw new Error('Right-click a folder of the workspace in the Explorer to attach its files.');
    await this.deps.view.reveal();
    return this.attachFolder(path);
  }

  /**
   * A folder's files (shallow ones first), at most {@link MAX_GROUP_FILES}, while the budget has
   * room. Excluded files are never listed; they are counted, as are those left out for the budget
   * or refused by the guard (binary, too large).
   */
  async attachFolder(folder: string): Promise<GroupOutcome> {
    const trimmed = folder.replace(/\/+$/, '');
    const listing = await this.deps.workspace.listFiles(`${trimmed}/**`, MAX_LISTED_FILES);
    const files = filesUnder(listing.paths, trimmed);
    const excluded = Math.max(0, (await this.countFiles(trimmed)) - files.length);
    const specs = files.slice(0, MAX_GROUP_FILES).map((path) => ({ kind: 'file' as const, path }));
    const result = await this.attachGroup(specs);
    const summary = groupSummary(trimmed, { one: 'file', many: 'files' }, result, {
      excluded,
      capped: Math.max(0, files.length - MAX_GROUP_FILES),
    });
    this.deps.controller.showBanner('info', summary);
    return { ...result, summary };
  }

  /** The lines Git sees changed in the working tree and the index (against HEAD), while the budget has room. */
  async attachGitChanges(): Promise<GroupOutcome> {
    const api = await gitApi();
    if (typeof api === 'string') throw new Error(api);
    if (api.repositories.length === 0) throw new Error('No Git repository is open in this workspace.');
    const { specs, deleted } = await gitChangeSpecs(api);
    if (specs.length === 0 && deleted === 0) throw new Error('The working tree has no changes against HEAD.');
    const result = await this.attachGroup(specs);
    const summary = groupSummary('the working tree', { one: 'change', many: 'changes' }, result, { deleted });
    this.deps.controller.showBanner('info', summary);
    return { ...result, summary };
  }

  private async attachGroup(specs: Parameters<typeof attachWithinRoom>[0]): Promise<GroupResult> {
    const { session } = this.deps;
    const run = () =>
      attachWithinRoom(specs, room(session.meter()), {
        attachOne: (spec) => session.attach(spec),
        drop: (chipId) => void session.removeChip(chipId),
        chipIds: () => new Set(session.chips().map((c) => c.id)),
      });
    const result =
      specs.length > 3
        ? await vscode.window.withProgress({ location: { viewId: 'strata.chat' }, title: `Attaching ${specs.length} items` }, run)
        : await run();
    this.deps.controller.showAttached(result.added, result.refused);
    return result;
  }

  /** Files in the folder as the editor's file search finds them (before Strata's excludes), for the "excluded" count. */
  private async countFiles(folder: string): Promise<number> {
    const uri = this.deps.workspace.uriOf(folder);
    if (!uri) return 0;
    const found = await vscode.workspace.findFiles(new vscode.RelativePattern(uri, '**/*'), '**/node_modules/**', MAX_LISTED_FILES);
    return found.length;
  }
}
