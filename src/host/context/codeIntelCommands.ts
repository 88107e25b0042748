/**
 * "Strata: Attach Selection with Definitions" and "Strata: Attach File with Imports", and the chip
 * action that adds a selection's definitions: what to attach is taken from the editor (or the
 * Explorer's file, or the chip), the work is the session's (src/services/session/codeIntelAttach.ts),
 * and the result is shown as every attachment is (chips, refusals with their reasons). The work
 * runs under a cancellable progress notification: Cancel stops the language providers' calls.
 */
import * as vscode from 'vscode';
import type { Rejection } from '../../engine/isolation';
import type { ChipView } from '../../protocol/messages';
import type { ChatSession } from '../../services/chatSession';
import type { AttachmentSpec } from '../../services/workspacePort';
import { fileSpec, selectionSpecs, uriSpec, type SpecOrRefusal } from './attachFromEditor';
import { readSetting } from '../settings/config';
import type { StrataController } from '../strataController';

type SelectionSpec = Extract<AttachmentSpec, { kind: 'selection' }>;

const NUMBER = new Intl.NumberFormat('en-US');
/** Names of left-out definitions a message lists before `…`. */
const LEFT_OUT_NAMES = 5;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${NUMBER.format(n)} ${n === 1 ? one : many}`;
}

/** The selection a chip's label names (`path:L12-30`). */
function selectionOfLabel(label: string): SelectionSpec | undefined {
  const m = /^(.*):L(\d+)-(\d+)$/.exec(label);
  return m ? { kind: 'selection', path: m[1], startLine: Number(m[2]), endLine: Number(m[3]) } : undefined;
}

/** The Explorer passes the clicked file and the selected ones; the editor title passes its file. */
function urisOf(arg: unknown, all: unknown): vscode.Uri[] {
  if (Array.isArray(all) && all.length > 0 && all.every((u) => u instanceof vscode.Uri)) return all as vscode.Uri[];
  return arg instanceof vscode.Uri ? [arg] : [];
}

export class CodeIntelCommands {
  constructor(
    private readonly session: ChatSession,
    private readonly controller: () => StrataController,
  ) {}

  /** Runs `work` under a cancellable notification; Cancel aborts its signal. */
  private withProgress<T>(title: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return Promise.resolve(
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (_, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        try {
          return await work(abort.signal);
        } finally {
          sub.dispose();
        }
      }),
    );
  }

  private show(added: ChipView[], refused: Rejection[], summary: string | undefined): void {
    this.controller().showAttached(added, refused);
    if (summary) void vscode.window.showInformationMessage(`Strata: ${summary}`);
  }

  /** "Attach Selection with Definitions" on the active editor's selections. */
  async selectionWithDefinitions(): Promise<ChipView[]> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new Error('Select lines in an editor first.');
    const specs = selectionSpecs(editor);
    if (specs.length === 0) throw new Error('The editor has no selection. Select the lines to attach first.');
    return this.attachDefinitions(specs);
  }

  /** The chip action: the selection chip `chipId` again, with its definitions. */
  async chipWithDefinitions(chipId: string): Promise<ChipView[]> {
    const chip = this.session.chips().find((c) => c.id === chipId);
    if (!chip) throw new Error('That attachment is no longer there.');
    const spec = chip.kind === 'selection' ? selectionOfLabel(chip.label) : undefined;
    if (!spec) throw new Error('Definitions are found for a selection; this attachment is a whole file.');
    return this.attachDefinitions([{ ok: true, spec }]);
  }

  private async attachDefinitions(specs: SpecOrRefusal[]): Promise<ChipView[]> {
    const budget = readSetting('context.definitionsBudget');
    const added: ChipView[] = [];
    const refused: Rejection[] = [];
    let skipped = 0;
    let bodies = 0;
    const names: string[] = [];
    await this.withProgress('Strata: finding the definitions the selection uses', async (signal) => {
      for (const s of specs) {
        if (!s.ok) {
          refused.push(s.rejection);
          continue;
        }
        const r = await this.session.codeIntel.selectionWithDefinitions(s.spec as SelectionSpec, budget, signal);
        if (r.chip) added.push(r.chip);
        refused.push(...r.rejections);
        skipped += r.skippedForBudget;
        bodies += r.bodiesLeftOut;
        for (const n of r.leftOut) if (!names.includes(n)) names.push(n);
      }
    });
    const found = added.reduce((n, c) => n + (c.definitions?.length ?? 0), 0);
    const shown = names.slice(0, LEFT_OUT_NAMES).join(', ') + (names.length > LEFT_OUT_NAMES ? ', …' : '');
    const left =
      (skipped > 0
        ? `; ${plural(skipped, 'more')} did not fit strata.context.definitionsBudget (${NUMBER.format(budget)} tokens): ${shown}`
        : '') + (bodies > 0 ? `; ${plural(bodies, 'function')} it calls went as signatures, their bodies did not fit` : '');
    const summary =
      added.length === 0
        ? undefined
        : found === 0
          ? `no definitions in the workspace were found for ${added.map((c) => c.label).join(', ')}${left}.`
          : `attached ${added.map((c) => c.label).join(', ')} with ${plural(found, 'definition')}${left}.`;
    this.show(added, refused, found === 0 || skipped > 0 || bodies > 0 ? summary : undefined);
    return added;
  }

  /** "Attach File with Imports": the Explorer's or editor title's files, else the active editor's. */
  async fileWithImports(arg?: unknown, all?: unknown): Promise<ChipView[]> {
    const uris = urisOf(arg, all);
    let specs: SpecOrRefusal[];
    if (uris.length > 0) specs = uris.map(uriSpec);
    else {
      const editor = vscode.window.activeTextEditor;
      if (!editor) throw new Error('Open a file in the editor first.');
      specs = [fileSpec(editor.document)];
    }
    const refused: Rejection[] = [];
    const paths: string[] = [];
    for (const s of specs) {
      if (s.ok) paths.push(s.spec.path);
      else refused.push(s.rejection);
    }
    const depth = readSetting('context.importsDepth');
    const budget = readSetting('context.importsBudget');
    const r =
      paths.length === 0
        ? undefined
        : await this.withProgress(
            `Strata: attaching ${paths.length === 1 ? paths[0] : plural(paths.length, 'file')} with its imports`,
            (signal) => this.session.codeIntel.filesWithImports(paths, depth, budget, signal),
          );
    if (!r) {
      this.show([], refused, undefined);
      return [];
    }
    refused.push(...r.rejections);
    const outlines = r.outlines > 0 ? `, ${plural(r.outlines, 'as an outline', 'as outlines')}` : '';
    const skipped =
      r.skipped > 0 ? `; ${plural(r.skipped, 'more file')} did not fit strata.context.importsBudget (${NUMBER.format(budget)} tokens)` : '';
    const names =
      r.names > 0
        ? `; of ${plural(r.names, 'large module')}, the declarations imported${r.leftOut > 0 ? ` (${NUMBER.format(r.leftOut)} did not fit)` : ''}`
        : '';
    const summary =
      r.chips.length > 0 ? `attached ${plural(r.chips.length, 'file')} with imports${outlines}${names}${skipped}.` : undefined;
    this.show(r.chips, refused, summary);
    return r.chips;
  }
}
