/**
 * The file (or selection) the user is looking at, offered for the next message and never sent unless
 * included. `strata.context.activeEditor`:
 * - `suggest`: the panel shows a dashed chip; one click or Enter attaches it through the attach path;
 * - `off`: nothing is offered;
 * - `always`: it is attached as a normal chip (visible and removable before sending) whenever the
 *   editor or the chips change, and a chip it attached for a file the user left is taken away again.
 *
 * A file the isolation refuses (excluded, outside the workspace folders) is still shown, greyed, with
 * the reason: a file that is silently not offered looks like a bug. Untitled documents with text are
 * offered (the attach path accepts them); empty ones and editors that are not documents (output,
 * settings, diffs of other schemes) are not.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { ChipView } from '../../protocol/messages';
import type { MentionRef, SuggestionView } from '../../protocol/mentions';
import { selectionLines, type SpecOrRefusal } from './attachFromEditor';
import { onDidChangeSettings, readSetting } from '../settings/config';
import { HostWorkspace } from './hostWorkspace';

/** Selection changes arrive per keystroke while the user selects: the chip follows once they pause. */
const DEBOUNCE_MS = 150;
const OFFERED_SCHEMES = new Set(['file', 'untitled', 'vscode-remote', 'vscode-vfs']);

export interface SuggestionDeps {
  workspace: Pick<HostWorkspace, 'checkTarget'>;
  post(suggestion: SuggestionView | null): void;
  chips(): readonly ChipView[];
  /** Files the next message carries already without a chip (attached in an earlier turn): not offered again. */
  inContext(): ReadonlySet<string>;
  attachSpecs(specs: SpecOrRefusal[]): Promise<ChipView[]>;
  removeChip(id: string): void;
  /** Turns the chat has (a chip that left with a sent message is attached again for the next one). */
  turnCount(): number;
  /** Fires when the panel (re)loads and after chips or turns change. */
  onDidChangeChips: vscode.Event<void>;
  onDidPanelLoad: vscode.Event<void>;
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The chip label the session gives the same attachment (`path` or `path:L12-30`). */
function chipLabelOf(ref: MentionRef): string | undefined {
  if (ref.kind === 'file') return ref.path;
  if (ref.kind === 'range') return `${ref.path}:L${ref.startLine}-${ref.endLine}`;
  return undefined;
}

export class ActiveEditorSuggestion extends Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private current: SuggestionView | null = null;
  private posted: string | undefined;
  /** The chip `always` attached, for what, and in which turn of which chat. */
  private auto: { chipId: string; label: string; turns: number } | undefined;
  /** What `always` tried and the attach path refused (not tried again until the editor moves on). */
  private refused: string | undefined;
  /** The last update queued: updates run one after another, each on the editor as it is when it starts. */
  private tail: Promise<void> = Promise.resolve();
  private readonly onDidChangeEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires when what is suggested changes (the Context Layers tree says it under Next message). */
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor(private readonly deps: SuggestionDeps) {
    super();
    this._register({ dispose: () => clearTimeout(this.timer) });
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.schedule()));
    this._register(vscode.window.onDidChangeTextEditorSelection(() => this.schedule()));
    this._register(deps.onDidChangeChips(() => this.schedule()));
    this._register(
      deps.onDidPanelLoad(() => {
        this.posted = undefined;
        this.schedule(0);
      }),
    );
    this._register(
      onDidChangeSettings((keys) => {
        if (keys.some((k) => k === 'context.activeEditor' || k === 'context.exclude')) this.schedule(0);
      }),
    );
    this.schedule(0);
  }

  /** The file or selection suggested and not included, for the tree (undefined: none). */
  suggestedLabel(): string | undefined {
    return this.current?.available ? this.current.detail : undefined;
  }

  /** Brings the chip up to date now (tests; the events call it debounced). */
  update(): Promise<void> {
    clearTimeout(this.timer);
    const run = this.tail.then(() => this.compute()).catch(() => undefined);
    this.tail = run;
    return run;
  }

  private schedule(delay = DEBOUNCE_MS): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.update(), delay);
  }

  private async compute(): Promise<void> {
    const mode = readSetting('context.activeEditor');
    const offered = mode === 'off' ? null : await this.offer();
    if (mode === 'always') {
      const shown = await this.attachAlways(offered);
      this.publish(shown);
      return;
    }
    if (this.auto) this.auto = undefined;
    const label = offered ? chipLabelOf(offered.ref) : undefined;
    // Already attached, or a file already in context from an earlier turn: nothing to offer.
    const attached =
      label !== undefined &&
      (this.deps.chips().some((c) => c.label === label) || (offered?.ref.kind === 'file' && this.deps.inContext().has(label)));
    this.publish(attached ? null : offered);
  }

  /** `always`: the active editor as a normal chip; a chip it attached earlier for another target goes. */
  private async attachAlways(offered: SuggestionView | null): Promise<SuggestionView | null> {
    const label = offered?.available ? chipLabelOf(offered.ref) : undefined;
    const chips = this.deps.chips();
    if (this.auto && this.auto.label !== label) {
      const mine = chips.find((c) => c.id === this.auto!.chipId && !c.pinned);
      if (mine) this.deps.removeChip(mine.id);
      this.auto = undefined;
    }
    if (!offered || !label) return offered && !offered.available ? offered : null;
    if (chips.some((c) => c.label === label)) return null;
    if (this.refused === label) return null;
    // The user removed the chip it attached: offered instead, until the editor moves on or a message is sent.
    if (this.auto && this.auto.label === label && this.auto.turns === this.deps.turnCount()) return offered;
    const ref = offered.ref;
    const spec: SpecOrRefusal =
      ref.kind === 'range'
        ? { ok: true, spec: { kind: 'selection', path: ref.path, startLine: ref.startLine, endLine: ref.endLine } }
        : { ok: true, spec: { kind: 'file', path: label } };
    const added = await this.deps.attachSpecs([spec]);
    if (added.length === 0) {
      this.refused = label;
      return null;
    }
    this.refused = undefined;
    this.auto = { chipId: added[0].id, label: added[0].label, turns: this.deps.turnCount() };
    return null;
  }

  /** What the active editor offers now, or null. */
  private async offer(): Promise<SuggestionView | null> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return null;
    const doc = editor.document;
    if (!OFFERED_SCHEMES.has(doc.uri.scheme)) return null;
    const path = HostWorkspace.pathOf(doc.uri);
    const name = path && !doc.isUntitled ? baseName(path) : baseName(doc.uri.path);
    const sel = editor.selection;
    const lines = sel.isEmpty ? undefined : selectionLines(sel);
    const label = lines ? `${name}:${lines.startLine}-${lines.endLine}` : name;
    if (!path) {
      return {
        label,
        detail: HostWorkspace.labelOf(doc.uri),
        ref: { kind: 'file', path: name },
        available: false,
        reason: 'It is outside this window’s workspace folders; only files inside them can be attached.',
      };
    }
    if (doc.isUntitled && doc.getText().trim().length === 0) return null;
    const ref: MentionRef = lines ? { kind: 'range', path, ...lines } : { kind: 'file', path };
    const detail = lines ? `${path}:${lines.startLine}-${lines.endLine}` : path;
    if (!doc.isUntitled) {
      const check = await this.deps.workspace.checkTarget(path);
      if (!check.ok) return { label, detail, ref, available: false, reason: check.message };
    }
    return { label, detail, ref, available: true };
  }

  private publish(view: SuggestionView | null): void {
    const key = JSON.stringify(view);
    const changed = JSON.stringify(this.current) !== key;
    this.current = view;
    if (this.posted !== key) {
      this.posted = key;
      this.deps.post(view);
    }
    if (changed) this.onDidChangeEmitter.fire();
  }
}
