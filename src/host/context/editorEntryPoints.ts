/**
 * Where the editor hands work to Strata: "Ask Strata" code actions on a diagnostic or a selection,
 * the editor's and the Explorer's context-menu items, and the command that focuses the chat input.
 * Every path attaches through the controller (isolation, excludes, refusals with reasons) and says
 * what it attached; a question is only drafted in the input, never sent.
 */
import * as vscode from 'vscode';
import type { ChipView } from '../../protocol/messages';
import { selectionLines } from './attachFromEditor';
import type { ChatViewProvider } from '../panel/chatViewProvider';
import type { CommandHandler } from '../commands/commands';
import type { CommandId } from '../commands/commandIds';
import { HostWorkspace } from './hostWorkspace';
import { draftQuestion, SEVERITY, type Problem } from '../panel/askDraft';
import type { StrataController } from '../strataController';

export interface EntryPointDeps {
  controller: StrataController;
  view: ChatViewProvider;
}

/** The arguments of an "Ask Strata" action: the range to attach and, for a problem, its text. */
export interface AskArgs {
  uri: vscode.Uri;
  range: vscode.Range;
  /** The diagnostic as the Problems view shows it (a snapshot: the draft quotes it). */
  problem?: Problem;
}

function codeOf(d: vscode.Diagnostic): string | undefined {
  if (d.code === undefined) return undefined;
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

/** Code actions: "Ask Strata about this problem" on diagnostics (quick fix), "Ask Strata" on a selection. */
export class AskStrataCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix, vscode.CodeActionKind.Refactor.append('strata')];

  provideCodeActions(
    doc: vscode.TextDocument,
    range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    if (!HostWorkspace.pathOf(doc.uri)) return [];
    const out: vscode.CodeAction[] = [];
    const wants = (kind: vscode.CodeActionKind) => !context.only || context.only.contains(kind) || kind.contains(context.only);
    if (wants(vscode.CodeActionKind.QuickFix)) {
      for (const d of context.diagnostics.slice(0, 3)) {
        const short = d.message.split('\n')[0];
        const action = new vscode.CodeAction(
          `Ask Strata: ${short.length > 60 ? `${short.slice(0, 57)}…` : short}`,
          vscode.CodeActionKind.QuickFix,
        );
        action.diagnostics = [d];
        const code = codeOf(d);
        const args: AskArgs = {
          uri: doc.uri,
          range: d.range,
          problem: { message: d.message, line: d.range.start.line + 1, severity: SEVERITY[d.severity] ?? 'problem' },
        };
        if (d.source) args.problem!.source = d.source;
        if (code) args.problem!.code = code;
        action.command = { command: 'strata.askStrata', title: 'Ask Strata', arguments: [args] };
        out.push(action);
      }
    }
    const kind = AskStrataCodeActions.kinds[1];
    if (!range.isEmpty && wants(kind)) {
      const action = new vscode.CodeAction('Ask Strata about the selection', kind);
      action.command = { command: 'strata.askStrata', title: 'Ask Strata', arguments: [{ uri: doc.uri, range } satisfies AskArgs] };
      out.push(action);
    }
    return out;
  }
}

function isAskArgs(v: unknown): v is AskArgs {
  return !!v && typeof v === 'object' && (v as AskArgs).uri instanceof vscode.Uri && (v as AskArgs).range instanceof vscode.Range;
}

function said(chips: readonly ChipView[]): string {
  const tokens = chips.reduce((n, c) => n + c.tokens, 0);
  const names = chips.length === 1 ? chips[0].label : `${chips.length} items`;
  return vscode.l10n.t('Strata: attached {0} to the next message ({1} tokens).', names, tokens.toLocaleString('en-US'));
}

/**
 * After an attach from the Explorer or the editor's menu: the chat is revealed (keeping the focus
 * where the user is), so the new chip is in sight; where it cannot be, its icon is marked and the
 * editor says what was attached. A refusal is reported by the attach path itself (a notification
 * while the panel is hidden), without taking the user away.
 */
async function showAttachedHere(view: ChatViewProvider, text: string): Promise<void> {
  const revealed = await view.show().then(
    () => true,
    () => false,
  );
  if (revealed) return;
  view.markUnseen(text);
  void vscode.window.showInformationMessage(text);
}

/** The handlers of the entry-point commands (registered with every other command). */
export function entryPointHandlers(d: EntryPointDeps): Pick<Record<CommandId, CommandHandler>, EntryPointCommand> {
  const { controller, view } = d;
  const draft = async (text: string): Promise<void> => {
    await view.reveal(true);
    await view.whenReady();
    view.post({ type: 'setInput', text });
  };
  return {
    'strata.addSelectionToStrata': async () => {
      const added = await controller.attach('selection');
      if (added.length > 0) await showAttachedHere(view, said(added));
      return added;
    },
    // Explorer: the right-clicked file (and the others selected with it). Folders are refused:
    // a folder can hold many files, and nothing is attached that the user did not pick.
    'strata.attachFileToStrata': async (arg?: unknown, all?: unknown) => {
      const picked = (Array.isArray(all) && all.length > 0 ? all : [arg]).filter((u): u is vscode.Uri => u instanceof vscode.Uri);
      if (picked.length === 0) throw new Error('Right-click a file in the Explorer to attach it.');
      const files: vscode.Uri[] = [];
      const folders: string[] = [];
      for (const uri of picked) {
        const stat = await vscode.workspace.fs.stat(uri).then(undefined, () => undefined);
        if (stat && stat.type & vscode.FileType.Directory) folders.push(HostWorkspace.labelOf(uri));
        else files.push(uri);
      }
      if (folders.length > 0)
        void vscode.window.showWarningMessage(
          vscode.l10n.t('Strata attaches files, not folders ({0}): select the files to attach.', folders.join(', ')),
        );
      const added = files.length > 0 ? await controller.attachUris(files) : [];
      if (added.length > 0) await showAttachedHere(view, said(added));
      return added;
    },
    'strata.askStrata': async (arg?: unknown) => {
      let args: AskArgs | undefined = isAskArgs(arg) ? arg : undefined;
      const editor = vscode.window.activeTextEditor;
      if (!args && editor && !editor.selection.isEmpty) args = { uri: editor.document.uri, range: editor.selection };
      if (!args) throw new Error('Select lines, or use the light bulb on a problem, to ask Strata about them.');
      const path = HostWorkspace.pathOf(args.uri);
      if (!path) throw new Error(`${HostWorkspace.labelOf(args.uri)} is outside this window's workspace folders.`);
      const { startLine, endLine } = selectionLines(args.range);
      const added = await controller.attachSpecs([{ ok: true, spec: { kind: 'selection', path, startLine, endLine } }]);
      if (added.length === 0) return undefined;
      await draft(draftQuestion({ label: added[0].label, problem: args.problem }));
      return added;
    },
    'strata.focusInput': () => view.reveal(true),
  };
}

export type EntryPointCommand = 'strata.addSelectionToStrata' | 'strata.attachFileToStrata' | 'strata.askStrata' | 'strata.focusInput';

/** Registers the code actions for every document Strata can attach from. */
export function registerAskStrata(): vscode.Disposable {
  return vscode.languages.registerCodeActionsProvider({ scheme: '*' }, new AskStrataCodeActions(), {
    providedCodeActionKinds: AskStrataCodeActions.kinds,
  });
}
