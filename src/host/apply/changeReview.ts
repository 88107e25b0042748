/**
 * The review bar of a Strata proposal diff: while such a diff is the active editor, the status bar
 * offers "Accept (Ctrl+Enter)", "Reject (Ctrl+Backspace)" and "Change 1 of 2", the change the cursor
 * is on is marked in the diff with the same keys, and the context key `strataProposalActive` scopes
 * the keybindings (package.json) to that diff.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import { currentChange, reviewKeys, reviewLabel, type ReviewView } from '../../services/apply/review';

export type { ReviewView } from '../../services/apply/review';

/** The scheme of the proposed files shown on the right of the diff (read-only virtual documents). */
export const PROPOSAL_SCHEME = 'strata-proposal';
/** Context key: the active editor is a Strata proposal diff. */
export const PROPOSAL_ACTIVE_KEY = 'strataProposalActive';

export class ChangeReview extends Disposable {
  private readonly acceptItem: vscode.StatusBarItem;
  private readonly rejectItem: vscode.StatusBarItem;
  private readonly countItem: vscode.StatusBarItem;
  private readonly marker: vscode.TextEditorDecorationType;
  private active = false;

  constructor(private readonly reviewOf: (uri: vscode.Uri) => ReviewView | undefined) {
    super();
    const keys = reviewKeys();
    // Left of everything else on the right side, in the order they read: Accept, Reject, the count.
    this.acceptItem = this._register(vscode.window.createStatusBarItem('strataReviewAccept', vscode.StatusBarAlignment.Right, 1003));
    this.acceptItem.name = 'Strata: Accept Change';
    this.acceptItem.text = `$(check) Accept (${keys.accept})`;
    this.acceptItem.tooltip = vscode.l10n.t('Accept this change of the Strata proposal ({0})', keys.accept);
    this.acceptItem.command = 'strata.acceptHunk';
    this.acceptItem.backgroundColor = new vscode.ThemeColor('statusBarItem.prominentBackground');
    this.rejectItem = this._register(vscode.window.createStatusBarItem('strataReviewReject', vscode.StatusBarAlignment.Right, 1002));
    this.rejectItem.name = 'Strata: Reject Change';
    this.rejectItem.text = `$(close) Reject (${keys.reject})`;
    this.rejectItem.tooltip = vscode.l10n.t('Reject this change of the Strata proposal ({0})', keys.reject);
    this.rejectItem.command = 'strata.rejectHunk';
    this.countItem = this._register(vscode.window.createStatusBarItem('strataReviewCount', vscode.StatusBarAlignment.Right, 1001));
    this.countItem.name = 'Strata: Proposed Changes';
    this.countItem.command = 'workbench.action.compareEditor.nextChange';
    this.countItem.tooltip = vscode.l10n.t('Go to the next change (Alt+F5)');
    this.marker = this._register(
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        borderStyle: 'solid',
        borderWidth: '1px 0 0 0',
        borderColor: new vscode.ThemeColor('focusBorder'),
        after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 3em' },
      }),
    );
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.refresh()));
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()));
    this._register(vscode.window.tabGroups.onDidChangeTabs(() => this.refresh()));
    this._register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === PROPOSAL_SCHEME) this.refresh();
      }),
    );
    this._register(
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (this.reviewOf(e.textEditor.document.uri)) this.refresh();
      }),
    );
  }

  /** The proposal's URI when the active tab is its diff. */
  private activeProposalUri(): vscode.Uri | undefined {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    return tab?.input instanceof vscode.TabInputTextDiff && this.reviewOf(tab.input.modified) ? tab.input.modified : undefined;
  }

  private editorOf(uri: vscode.Uri): vscode.TextEditor | undefined {
    return vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  }

  /** The index (among all the proposal's changes) of the change the diff's cursor is on. */
  current(uri: vscode.Uri): number | undefined {
    const view = this.reviewOf(uri);
    if (!view || view.pending.length === 0) return undefined;
    const editor = this.editorOf(uri);
    return view.pending[currentChange(view.pending, editor?.selection.active.line)].index;
  }

  /** Shows the bar and the marker for the active proposal diff, or hides them. */
  refresh(): void {
    const uri = this.activeProposalUri();
    const view = uri ? this.reviewOf(uri) : undefined;
    for (const editor of vscode.window.visibleTextEditors)
      if (editor.document.uri.scheme === PROPOSAL_SCHEME && editor.document.uri.toString() !== uri?.toString())
        editor.setDecorations(this.marker, []);
    const active = uri !== undefined && view !== undefined && view.pending.length > 0;
    if (active !== this.active) {
      this.active = active;
      void vscode.commands.executeCommand('setContext', PROPOSAL_ACTIVE_KEY, active);
    }
    if (!active) {
      this.acceptItem.hide();
      this.rejectItem.hide();
      this.countItem.hide();
      return;
    }
    const editor = this.editorOf(uri);
    const position = currentChange(view.pending, editor?.selection.active.line);
    this.countItem.text = vscode.l10n.t('Change {0} of {1}', position + 1, view.pending.length);
    this.acceptItem.show();
    this.rejectItem.show();
    this.countItem.show();
    if (!editor) return;
    const change = view.pending[position];
    const line = Math.min(change.line, Math.max(0, editor.document.lineCount - 1));
    editor.setDecorations(this.marker, [
      {
        range: new vscode.Range(line, 0, line, 0),
        renderOptions: { after: { contentText: reviewLabel(position, view.pending.length) } },
      },
    ]);
  }
}
