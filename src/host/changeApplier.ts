/**
 * Apply for a reply's code block: pick the target file, merge the block into it, show the proposed
 * file in a diff with Accept and Reject, and on Accept apply it as one undoable `WorkspaceEdit`.
 * The panel only asks; every target passes the same isolation checks as an attachment (inside the
 * workspace on its real path, not excluded), when proposed and again when accepted.
 */
import * as vscode from 'vscode';
import { acceptQuestion, proposalFor, runsThingsAtAcceptQuestion } from './consentRules';
import { Disposable } from '../common/lifecycle';
import { appendBlock, mergeBlock, type MergeResult } from '../services/apply/applyMerge';
import { chooseTarget } from '../services/apply/applyTarget';
import { classifyRunsThings } from '../services/apply/runsThings';
import type { HostWorkspace } from './hostWorkspace';

/** The scheme of the proposed files shown on the right of the diff (read-only virtual documents). */
export const PROPOSAL_SCHEME = 'strata-proposal';
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
}

interface Proposal {
  readonly id: number;
  readonly uri: vscode.Uri;
  readonly path: string;
  /** The file's text the proposal was made from; Accept refuses if the file changed since. */
  readonly base: string | undefined;
  readonly content: string;
  readonly proposalUri: vscode.Uri;
  /** The user confirmed a change to a file that runs things (see runsThings.ts). */
  readonly runsThingsConfirmed: boolean;
}

/** A question Apply puts to the user before it goes on. */
export type ApplyQuestion =
  { kind: 'create'; path: string } | { kind: 'runsThings'; path: string; risk: string } | { kind: 'accept'; path: string };

export interface ChangeApplierDeps {
  workspace: HostWorkspace;
  /** Workspace paths of the files and selections the chat holds (newest first). */
  attachedPaths(): string[];
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

  constructor(private readonly deps: ChangeApplierDeps) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposals.get(uri.toString())?.content ?? '';
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
    await this.propose(target.uri, target.path, base, content, risk !== undefined);
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
  ): Promise<void> {
    const id = ++this.counter;
    const proposalUri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${path}`, query: `proposal=${id}` });
    const proposal: Proposal = { id, uri, path, base, content, proposalUri, runsThingsConfirmed };
    this.proposals.set(proposalUri.toString(), proposal);
    const left = base === undefined ? vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${path}`, query: `empty=${id}` }) : uri;
    await vscode.commands.executeCommand('setContext', CONTEXT_KEY, true);
    await vscode.commands.executeCommand('vscode.diff', left, proposalUri, vscode.l10n.t('{0} ↔ Strata proposal', path), {
      preview: false,
    });
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

  /** Applies the proposal as one undoable edit and saves the file. Resolves with whether it was applied. */
  async accept(arg?: unknown): Promise<boolean> {
    const p = this.proposalFor(arg);
    if (!p) throw new Error(vscode.l10n.t('No proposed change is open.'));
    // A command run with no argument, or for a change whose diff is not in front of the user, asks first.
    const acceptQ = acceptQuestion(p, this.activeProposal());
    if (acceptQ && !(await this.ask(acceptQ))) return false;
    const checked = await this.deps.workspace.checkTarget(p.path);
    if (!checked.ok) {
      await this.discard(p);
      throw new Error(`Strata does not change ${p.path}: ${checked.message}`);
    }
    // The file may have become one that runs things (a link swapped in): that needs its own yes.
    const runsQ = runsThingsAtAcceptQuestion(p.path, runsThingsRisk(checked.path, checked.uri, checked.real), p.runsThingsConfirmed);
    if (runsQ && !(await this.ask(runsQ))) return false;
    const edit = new vscode.WorkspaceEdit();
    if (p.base === undefined) {
      if (checked.exists) throw new Error(vscode.l10n.t('{0} was created meanwhile; apply the code again.', p.path));
      // The write goes to the real path checked just now, and only if it is the one proposed.
      if (checked.uri.toString() !== p.uri.toString())
        throw new Error(vscode.l10n.t('The folders of {0} changed after the change was proposed; apply the code again.', p.path));
      edit.createFile(checked.uri, { ignoreIfExists: false });
      edit.insert(checked.uri, new vscode.Position(0, 0), p.content);
    } else {
      const doc = await vscode.workspace.openTextDocument(p.uri);
      if (doc.getText() !== p.base)
        throw new Error(vscode.l10n.t('{0} changed after the change was proposed; apply the code again.', p.path));
      edit.replace(p.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), p.content);
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(vscode.l10n.t('The editor did not accept the change to {0}.', p.path));
    const doc = await vscode.workspace.openTextDocument(p.uri);
    await doc.save();
    await this.discard(p);
    await vscode.window.showTextDocument(doc, { preview: false });
    return true;
  }

  /** Closes the diff and forgets the proposal; the file is untouched. */
  async reject(arg?: unknown): Promise<boolean> {
    const p = this.proposalFor(arg);
    if (!p) return false;
    await this.discard(p);
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
  }

  /** The proposals open now (tests). */
  pending(): { path: string; content: string; proposalUri: vscode.Uri }[] {
    return [...this.proposals.values()].map((p) => ({ path: p.path, content: p.content, proposalUri: p.proposalUri }));
  }
}
