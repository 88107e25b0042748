/**
 * Apply for a reply's code block: pick the target file, merge the block into it, show the proposed
 * file in a diff with Accept and Reject, and on Accept apply it as one undoable `WorkspaceEdit`.
 * The panel only asks; every target passes the same isolation checks as an attachment (inside the
 * workspace on its real path, not excluded), when proposed and again when accepted.
 */
import * as vscode from 'vscode';
import { acceptQuestion, proposalFor, runsThingsAtAcceptQuestion } from '../commands/consentRules';
import { Disposable } from '../../common/lifecycle';
import { appendBlock, mergeBlock, type MergeResult } from '../../services/apply/applyMerge';
import { chooseTarget } from '../../services/apply/applyTarget';
import { applyHunks, diffHunks, hunkLines, type Hunk } from '../../services/apply/hunks';
import { classifyRunsThings } from '../../services/apply/runsThings';
import { ChangeReview, PROPOSAL_SCHEME, type ReviewView } from './changeReview';
import type { HostWorkspace } from '../context/hostWorkspace';
import { BLOCK_ID } from '../../protocol/requests';
import type { AppliedBlock } from '../../services/store/chatTypes';

export { PROPOSAL_SCHEME } from './changeReview';
/** Context key: a Strata diff is open (the Command Palette offers Accept / Reject then). */
const CONTEXT_KEY = 'strataChangeProposed';
/** Attached files read to find the block's target when the reply names none. */
const MAX_ATTACHED_FILES = 20;
/** Files offered in the quick pick when nothing else decides. */
const MAX_PICK_FILES = 2000;

export interface CodeBlockRequest {
  code: string;
  info: string;
  lineAbove: string;
  /** The chat's code block it is (the chat shows Applied or Rejected there once decided). */
  blockId?: string;
}

type HunkStatus = 'pending' | 'accepted' | 'rejected';

interface Proposal {
  readonly id: number;
  readonly uri: vscode.Uri;
  readonly path: string;
  /** The file's text the proposal was made from (undefined: a new file); what Undo restores. */
  readonly base: string | undefined;
  /** The changes from `base` to the proposed text, each accepted or rejected on its own. */
  readonly hunks: readonly Hunk[];
  readonly status: HunkStatus[];
  readonly proposalUri: vscode.Uri;
  /** The code block in the chat the proposal came from (its state is shown there). */
  readonly blockId: string | undefined;
  /** The user confirmed a change to a file that runs things (see runsThings.ts). */
  runsThingsConfirmed: boolean;
}

/** What Accept wrote for a code block, so Undo can put the file back as it was. */
interface AppliedChange {
  readonly uri: vscode.Uri;
  readonly path: string;
  readonly before: string | undefined;
  readonly after: string;
}

/** The state of a code block's change, as the chat shows it. */
export interface BlockChangeState {
  blockId: string;
  state: 'applied' | 'rejected' | 'undone';
  /** Changes accepted and changes proposed (an Accept of some changes only says "1 of 2"). */
  accepted: number;
  total: number;
  /** The workspace path of the file changed. */
  path: string;
}

/** Where a block id points: the chat, the turn of its reply and the block's number; undefined when it is no saved reply's block. */
export function blockRef(blockId: string): { chatId: string; turn: number; block: number } | undefined {
  if (!BLOCK_ID.test(blockId)) return undefined;
  const [chatId, messageId, index] = blockId.split('/');
  const m = /^(\d{1,9}):assistant$/.exec(messageId);
  return m ? { chatId, turn: Number(m[1]), block: Number(index) } : undefined;
}

/**
 * Saves a block's state with its chat (`save`: `ChatSession.blocks.record`), so the chat shows it when
 * opened again; a state that cannot be saved is logged (the chat shows it until the window closes).
 */
export function saveBlockState(
  state: BlockChangeState,
  save: (chatId: string, turn: number, mark: AppliedBlock) => void,
  log: (line: string) => void,
): void {
  const ref = blockRef(state.blockId);
  if (!ref) return;
  try {
    save(ref.chatId, ref.turn, { block: ref.block, state: state.state, accepted: state.accepted, total: state.total, path: state.path });
  } catch (e) {
    log(`the state of code block ${ref.block} of turn ${ref.turn} was not saved with chat ${ref.chatId}: ${(e as Error).message}`);
  }
}

function hunksWith(p: Proposal, keep: (s: HunkStatus) => boolean): Hunk[] {
  return p.hunks.filter((_, i) => keep(p.status[i]));
}

/** The text the file holds now, by what was accepted so far (undefined: not created yet). */
function writtenText(p: Proposal): string | undefined {
  const accepted = hunksWith(p, (s) => s === 'accepted');
  if (p.base === undefined && accepted.length === 0) return undefined;
  return applyHunks(p.base ?? '', accepted);
}

/** The proposal's text: the file with every change not rejected. */
function proposedText(p: Proposal): string {
  return applyHunks(
    p.base ?? '',
    hunksWith(p, (s) => s !== 'rejected'),
  );
}

/** A question Apply puts to the user before it goes on. */
export type ApplyQuestion =
  { kind: 'create'; path: string } | { kind: 'runsThings'; path: string; risk: string } | { kind: 'accept'; path: string };

export interface ChangeApplierDeps {
  workspace: HostWorkspace;
  /** Workspace paths of the files and selections the chat holds (newest first). */
  attachedPaths(): string[];
  /** A code block's change was decided or undone: the chat shows it. */
  blockState?(state: BlockChangeState): void;
}

/** The risk of a target that runs things, by its workspace path or by the path it really is on disk. */
function runsThingsRisk(path: string, uri: vscode.Uri, real?: vscode.Uri): string | undefined {
  const at = real ?? uri;
  const onDisk = at.scheme === 'file' ? vscode.workspace.asRelativePath(at, false) : undefined;
  return classifyRunsThings(path)?.risk ?? (onDisk !== undefined ? classifyRunsThings(onDisk)?.risk : undefined);
}

async function askWithModal(question: ApplyQuestion): Promise<boolean> {
  let message: string;
  let detail: string | undefined;
  let yes: string;
  if (question.kind === 'create') {
    message = vscode.l10n.t('{0} does not exist. Create it with this code? You review it in a diff first.', question.path);
    yes = vscode.l10n.t('Create File');
  } else if (question.kind === 'runsThings') {
    message = vscode.l10n.t('The reply proposes a change to {0}, a file that runs things: {1}.', question.path, question.risk);
    detail = vscode.l10n.t(
      'A reply can be steered by any file the model read. Continue only if you asked for this change; you review it in a diff before anything is written.',
    );
    yes = vscode.l10n.t('Review Change to {0}', question.path);
  } else {
    message = vscode.l10n.t('Apply the proposed change to {0}?', question.path);
    detail = vscode.l10n.t('The change was not accepted from its diff; this writes it to the file.');
    yes = vscode.l10n.t('Apply Change');
  }
  const answer = await vscode.window.showWarningMessage(message, { modal: true, detail }, yes);
  return answer === yes;
}

export class ChangeApplier extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly proposals = new Map<string, Proposal>();
  private counter = 0;
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  /** Asks the user (a modal); the integration suite answers in its place, as it does for other prompts. */
  ask: (question: ApplyQuestion) => Promise<boolean> = askWithModal;

  /** What Accept wrote, by code block, for Undo. */
  private readonly applied = new Map<string, AppliedChange>();
  private readonly review: ChangeReview;

  constructor(private readonly deps: ChangeApplierDeps) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this));
    this.review = this._register(new ChangeReview((uri) => this.reviewOf(uri)));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const p = this.proposals.get(uri.toString());
    return p ? proposedText(p) : '';
  }

  /** Proposes the block as a change to its target and opens the diff; resolves once the diff is shown. */
  async apply(block: CodeBlockRequest, chosenPath?: string): Promise<void> {
    const target = chosenPath === undefined ? await this.target(block) : await this.checkedOrCreated(chosenPath);
    if (!target) return;
    let base: string | undefined;
    let content: string;
    if (target.exists) {
      base = (await vscode.workspace.openTextDocument(target.uri)).getText();
      const merged = mergeBlock(base, block.code);
      const chosen = merged.kind === 'none' ? await this.whenNothingMatches(target.path, base, block) : merged;
      if (chosen === undefined) return;
      if ('retarget' in chosen) return this.apply(block, chosen.retarget);
      content = chosen.content;
    } else {
      content = appendBlock('', block.code);
    }
    const risk = runsThingsRisk(target.path, target.uri, target.real);
    if (risk !== undefined && !(await this.ask({ kind: 'runsThings', path: target.path, risk }))) return;
    await this.propose(target.uri, target.path, base, content, risk !== undefined, block.blockId);
  }

  /** The checked target, or undefined when the user cancelled; throws with the reason a target is refused. */
  private async target(
    block: CodeBlockRequest,
  ): Promise<{ uri: vscode.Uri; path: string; exists: boolean; real?: vscode.Uri } | undefined> {
    const attached = await this.attachedFiles();
    const choice = chooseTarget(block, attached);
    let path: string | undefined;
    if (choice.kind === 'named') {
      const checked = await this.check(choice.path);
      if (checked.exists) return checked;
      if (!choice.explicit) path = choice.fallback ?? (await this.pickFile());
      else if (await this.confirmCreate(checked.path)) return checked;
      else return undefined;
    } else if (choice.kind === 'attached') {
      path = choice.path;
    } else {
      path = await this.pickFile();
    }
    return path === undefined ? undefined : this.checkedOrCreated(path);
  }

  /** The checked path, confirmed by the user first when the file does not exist yet. */
  private async checkedOrCreated(path: string): Promise<{ uri: vscode.Uri; path: string; exists: boolean; real?: vscode.Uri } | undefined> {
    const checked = await this.check(path);
    if (!checked.exists && !(await this.confirmCreate(checked.path))) return undefined;
    return checked;
  }

  private async check(path: string): Promise<{ uri: vscode.Uri; path: string; exists: boolean; real?: vscode.Uri }> {
    const checked = await this.deps.workspace.checkTarget(path);
    if (!checked.ok) throw new Error(`Strata does not change ${path}: ${checked.message}`);
    if (checked.exists) {
      const stat = await vscode.workspace.fs.stat(checked.uri).then(
        (s) => s,
        () => undefined,
      );
      if (stat && stat.type & vscode.FileType.Directory) throw new Error(`${checked.path} is a folder, not a file.`);
    }
    return checked;
  }

  private confirmCreate(path: string): Promise<boolean> {
    return this.ask({ kind: 'create', path });
  }

  private async attachedFiles(): Promise<{ path: string; content: string }[]> {
    const out: { path: string; content: string }[] = [];
    for (const path of [...new Set(this.deps.attachedPaths())].slice(0, MAX_ATTACHED_FILES)) {
      const r = await this.deps.workspace.resolve({ kind: 'file', path });
      if (r.ok) out.push({ path, content: r.input.content });
    }
    return out;
  }

  private async pickFile(): Promise<string | undefined> {
    const listing = await this.deps.workspace.listFiles('**/*', MAX_PICK_FILES);
    const active = vscode.window.activeTextEditor;
    const activePath = active ? this.pathOf(active.document.uri) : undefined;
    const paths = activePath ? [activePath, ...listing.paths.filter((p) => p !== activePath)] : listing.paths;
    const pick = await vscode.window.showQuickPick(
      paths.map((p) => ({ label: p, description: p === activePath ? vscode.l10n.t('active editor') : undefined })),
      { placeHolder: vscode.l10n.t('Which file should this code go to?'), matchOnDescription: true },
    );
    return pick?.label;
  }

  private pathOf(uri: vscode.Uri): string | undefined {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder) return undefined;
    const relative = vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
    return relative === uri.fsPath ? undefined : relative;
  }

  /** Nothing in the file matches the block: insert it at the end, pick another file, or cancel. */
  private async whenNothingMatches(
    path: string,
    base: string,
    block: CodeBlockRequest,
  ): Promise<Exclude<MergeResult, { kind: 'none' }> | { retarget: string } | undefined> {
    const append = { label: vscode.l10n.t('Insert at the end of {0}', path), id: 'append' as const };
    const other = { label: vscode.l10n.t('Apply to another file…'), id: 'other' as const };
    const pick = await vscode.window.showQuickPick([append, other], {
      placeHolder: vscode.l10n.t('Nothing in {0} matches this code block', path),
    });
    if (!pick) return undefined;
    if (pick.id === 'append') return { kind: 'whole', content: appendBlock(base, block.code) };
    const picked = await this.pickFile();
    return picked === undefined ? undefined : { retarget: picked };
  }

  private async propose(
    uri: vscode.Uri,
    path: string,
    base: string | undefined,
    content: string,
    runsThingsConfirmed: boolean,
    blockId: string | undefined,
  ): Promise<void> {
    const id = ++this.counter;
    const proposalUri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${path}`, query: `proposal=${id}` });
    const hunks = diffHunks(base ?? '', content);
    const status = hunks.map((): HunkStatus => 'pending');
    const proposal: Proposal = { id, uri, path, base, hunks, status, proposalUri, blockId, runsThingsConfirmed };
    this.proposals.set(proposalUri.toString(), proposal);
    const left = base === undefined ? vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${path}`, query: `empty=${id}` }) : uri;
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY, true);
    await vscode.commands.executeCommand('vscode.diff', left, proposalUri, vscode.l10n.t('{0} ↔ Strata proposal', path), {
      preview: false,
    });
    this.review.refresh();
  }

  /** The pending changes of the proposal shown at `uri`, where they are in its text (the diff's right side). */
  private reviewOf(uri: vscode.Uri): ReviewView | undefined {
    const p = this.proposals.get(uri.toString());
    if (!p) return undefined;
    const shown = hunksWith(p, (s) => s !== 'rejected');
    const pending = p.hunks
      .map((h, index) => ({ h, index }))
      .filter(({ index }) => p.status[index] === 'pending')
      .map(({ h, index }) => ({ index, ...hunkLines(h, shown) }));
    return { total: p.hunks.length, pending };
  }

  /** The proposal a command is about: its argument (the diff's URI), the active diff, else the newest. */
  private proposalFor(arg?: unknown): Proposal | undefined {
    const byArgument = arg instanceof vscode.Uri ? this.proposals.get(arg.toString()) : undefined;
    return proposalFor(byArgument, this.activeProposal(), [...this.proposals.values()].at(-1));
  }

  /** The proposal whose diff is the active tab: the change the user is looking at. */
  private activeProposal(): Proposal | undefined {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    return tab?.input instanceof vscode.TabInputTextDiff ? this.proposals.get(tab.input.modified.toString()) : undefined;
  }

  /**
   * Accepts every change still proposed as one undoable edit and saves the file. Resolves with
   * whether it was applied.
   */
  async accept(arg?: unknown): Promise<boolean> {
    const p = this.proposalFor(arg);
    if (!p) throw new Error(vscode.l10n.t('No proposed change is open.'));
    // A command run with no argument, or for a change whose diff is not in front of the user, asks first.
    const acceptQ = acceptQuestion(p, this.activeProposal());
    if (acceptQ && !(await this.ask(acceptQ))) return false;
    const pending = p.status.flatMap((s, i) => (s === 'pending' ? [i] : []));
    if (!(await this.acceptHunks(p, pending))) return false;
    await this.finish(p);
    return true;
  }

  /**
   * Accepts one change of the proposal: `index` (0-based among all its changes), else the one the
   * diff's cursor is on. The others stay proposed; the diff closes once none is left.
   */
  async acceptHunk(arg?: unknown, index?: unknown): Promise<boolean> {
    const p = this.proposalFor(arg);
    if (!p) throw new Error(vscode.l10n.t('No proposed change is open.'));
    const i = this.hunkFor(p, index);
    if (i === undefined) return false;
    const acceptQ = acceptQuestion(p, this.activeProposal());
    if (acceptQ && !(await this.ask(acceptQ))) return false;
    if (!(await this.acceptHunks(p, [i]))) return false;
    await this.afterDecision(p);
    return true;
  }

  /** Rejects one change of the proposal (as `acceptHunk` picks it); the file is untouched. */
  async rejectHunk(arg?: unknown, index?: unknown): Promise<boolean> {
    const p = this.proposalFor(arg);
    if (!p) return false;
    const i = this.hunkFor(p, index);
    if (i === undefined) return false;
    p.status[i] = 'rejected';
    this.changed.fire(p.proposalUri);
    await this.afterDecision(p);
    return true;
  }

  /** Rejects every change still proposed: the diff closes and the file is untouched. */
  async reject(arg?: unknown): Promise<boolean> {
    const p = this.proposalFor(arg);
    if (!p) return false;
    p.status.forEach((s, i) => {
      if (s === 'pending') p.status[i] = 'rejected';
    });
    await this.finish(p);
    return true;
  }

  /** A pending change of `p`: the one asked for, else the diff's current one, else the first. */
  private hunkFor(p: Proposal, index: unknown): number | undefined {
    if (typeof index === 'number') return p.status[index] === 'pending' ? index : undefined;
    const current = this.review.current(p.proposalUri);
    if (current !== undefined && p.status[current] === 'pending') return current;
    const first = p.status.indexOf('pending');
    return first < 0 ? undefined : first;
  }

  /** Writes the file with `indexes` accepted too; false when the user said no to a question on the way. */
  private async acceptHunks(p: Proposal, indexes: readonly number[]): Promise<boolean> {
    const now = writtenText(p);
    const next = applyHunks(p.base ?? '', hunksWith(p, (s) => s === 'accepted').concat(indexes.map((i) => p.hunks[i])));
    const written = await this.write(p, now, next, (checked) => {
      if (p.base === undefined && now === undefined && checked.uri.toString() !== p.uri.toString())
        throw new Error(vscode.l10n.t('The folders of {0} changed after the change was proposed; apply the code again.', p.path));
    }).catch(async (e: Error) => {
      if (e instanceof TargetRefused) await this.discard(p);
      throw e;
    });
    if (!written) return false;
    p.runsThingsConfirmed = true;
    for (const i of indexes) p.status[i] = 'accepted';
    return true;
  }

  /** After one change was decided: the diff shows the rest, or closes when none is left. */
  private async afterDecision(p: Proposal): Promise<void> {
    if (p.status.includes('pending')) this.review.refresh();
    else await this.finish(p);
  }

  /** Every change is decided: close the diff, show the file when something was written, tell the chat. */
  private async finish(p: Proposal): Promise<void> {
    await this.discard(p);
    const accepted = p.status.filter((s) => s === 'accepted').length;
    const after = writtenText(p);
    if (accepted > 0 && after !== undefined) {
      if (p.blockId !== undefined) this.applied.set(p.blockId, { uri: p.uri, path: p.path, before: p.base, after });
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(p.uri), { preview: false });
    }
    if (p.blockId !== undefined)
      this.deps.blockState?.({
        blockId: p.blockId,
        state: accepted > 0 ? 'applied' : 'rejected',
        accepted,
        total: p.hunks.length,
        path: p.path,
      });
  }

  /**
   * Undo of a code block's Accept (the chat's Undo): the file goes back to what it was before,
   * through the same checks as Accept, and only if nothing changed it since.
   */
  async undo(blockId: string): Promise<void> {
    const a = this.applied.get(blockId);
    if (!a) throw new Error(vscode.l10n.t('There is no applied change of this code block to undo.'));
    await this.write({ uri: a.uri, path: a.path, runsThingsConfirmed: false }, a.after, a.before, (checked) => {
      if (checked.uri.toString() !== a.uri.toString())
        throw new Error(vscode.l10n.t('The folders of {0} changed after the change was applied; nothing was undone.', a.path));
    });
    this.applied.delete(blockId);
    this.deps.blockState?.({ blockId, state: 'undone', accepted: 0, total: 0, path: a.path });
  }

  /** Whether Undo of code block `blockId`'s applied change can work: this window applied it and holds what it wrote. */
  canUndo(blockId: string): boolean {
    return this.applied.has(blockId);
  }

  /**
   * The one write path of Apply, Accept and Undo: the target is checked again (inside the workspace,
   * not excluded, on its real path), a file that runs things needs its yes, and the file must hold
   * `now` (undefined: not exist). Writes `next` (undefined: delete the file Strata created) as one
   * undoable edit and saves. False when the user said no.
   */
  private async write(
    target: { uri: vscode.Uri; path: string; runsThingsConfirmed: boolean },
    now: string | undefined,
    next: string | undefined,
    checkNew: (checked: { uri: vscode.Uri }) => void,
  ): Promise<boolean> {
    const checked = await this.deps.workspace.checkTarget(target.path);
    if (!checked.ok) throw new TargetRefused(`Strata does not change ${target.path}: ${checked.message}`);
    // The file may have become one that runs things (a link swapped in): that needs its own yes.
    const runsQ = runsThingsAtAcceptQuestion(
      target.path,
      runsThingsRisk(checked.path, checked.uri, checked.real),
      target.runsThingsConfirmed,
    );
    if (runsQ && !(await this.ask(runsQ))) return false;
    const edit = new vscode.WorkspaceEdit();
    if (now === undefined) {
      if (checked.exists) throw new Error(vscode.l10n.t('{0} was created meanwhile; apply the code again.', target.path));
      // The write goes to the real path checked just now, and only if it is the one proposed.
      checkNew(checked);
      edit.createFile(checked.uri, { ignoreIfExists: false });
      edit.insert(checked.uri, new vscode.Position(0, 0), next ?? '');
    } else {
      if (!checked.exists) throw new Error(vscode.l10n.t('{0} was deleted after the change was proposed.', target.path));
      const doc = await vscode.workspace.openTextDocument(target.uri);
      if (doc.getText() !== now)
        throw new Error(vscode.l10n.t('{0} changed after the change was proposed; apply the code again.', target.path));
      if (next === undefined) {
        checkNew(checked);
        edit.deleteFile(target.uri);
      } else edit.replace(target.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), next);
    }
    if (!(await vscode.workspace.applyEdit(edit)))
      throw new Error(vscode.l10n.t('The editor did not accept the change to {0}.', target.path));
    // The editor may be saving it already (files.refactoring.autoSave): the answer of a second save says nothing.
    if (next !== undefined) await (await vscode.workspace.openTextDocument(target.uri)).save();
    return true;
  }

  private async discard(p: Proposal): Promise<void> {
    this.proposals.delete(p.proposalUri.toString());
    const key = p.proposalUri.toString();
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === key);
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
    if (this.proposals.size === 0) await vscode.commands.executeCommand('setContext', CONTEXT_KEY, false);
    this.review.refresh();
  }

  /** The proposals open now (tests). */
  pending(): { path: string; content: string; proposalUri: vscode.Uri }[] {
    return [...this.proposals.values()].map((p) => ({ path: p.path, content: proposedText(p), proposalUri: p.proposalUri }));
  }
}

/** The target is refused by the isolation checks: the proposal is dropped. */
class TargetRefused extends Error {}
