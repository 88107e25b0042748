/**
 * Attachments found through code intelligence, as composer chips: a selection with the definitions
 * it uses (one chip, "+N definitions", each definition a range of its file sent right after the
 * selection), and files with what they import (one chip per file, whole or as its outline; the
 * declarations a file names of a large module it imports go with that file's chip). What
 * they find is read through the workspace port, so excluded, outside and binary files are refused
 * with their reasons, as for any attachment.
 */
import type { Rejection } from '../../engine/isolation';
import type { ChipView, LeftOutView } from '../../protocol/messages';
import { isCodeIntelPort } from '../codeIntel/codeIntelPort';
import { filesWithImports } from '../codeIntel/importGraph';
import { definitionsForSelection, type SkippedDefinition } from '../codeIntel/selectionDefinitions';
import type { ITokenizer } from '../../engine/types';
import type { AttachmentSpec, WorkspacePort } from '../workspacePort';
import type { ComposerChips } from './composerChips';

/** What the session has now: its workspace port and the active chat's tokenizer. */
export interface CodeIntelContext {
  port: WorkspacePort;
  tokenizer: ITokenizer & { warm?(text: string, signal?: AbortSignal): Promise<void> };
}

export interface DefinitionsAttached {
  /** The selection's chip; absent when the selection itself was refused. */
  chip?: ChipView;
  rejections: Rejection[];
  /** Declarations left out because they did not fit the budget. */
  skippedForBudget: number;
  /** Their names, in the order they were considered (nearest first), for the message that says what was left out. */
  leftOut: string[];
  /** Declarations the selection calls that went as their signature because their body did not fit. */
  bodiesLeftOut: number;
}

export interface ImportsAttached {
  chips: ChipView[];
  /** Of the chips, how many went in as outlines. */
  outlines: number;
  /** Large modules sent as the declarations imported from them (on their importer's chip). */
  names: number;
  /** Of those declarations, how many did not fit the budget. */
  leftOut: number;
  rejections: Rejection[];
  /** Files that fit neither whole nor as an outline. */
  skipped: number;
}

/** What the chip lists as left out: each declaration with its lines and why. */
function leftOutViews(list: readonly SkippedDefinition[]): LeftOutView[] {
  return list.map((s) => ({ label: `${s.path}:L${s.startLine}-${s.endLine}`, symbol: s.symbol, reason: s.reason }));
}

const NO_CODE_INTEL = 'This workspace cannot answer definitions or imports (no code intelligence is available).';

export class CodeIntelAttach {
  constructor(
    private readonly composer: ComposerChips,
    private readonly context: () => CodeIntelContext,
  ) {}

  private codeIntelPort() {
    const port = this.context().port;
    if (!isCodeIntelPort(port)) throw new Error(NO_CODE_INTEL);
    return port;
  }

  private count(text: string): number {
    return this.context().tokenizer.count(text);
  }

  /**
   * The selection `spec` with the declarations it uses, nearest first, within `budgetTokens`. The
   * selection's chip is added (or refreshed, when that selection is attached already) with its
   * definitions.
   */
  async selectionWithDefinitions(
    spec: Extract<AttachmentSpec, { kind: 'selection' }>,
    budgetTokens: number,
    signal?: AbortSignal,
  ): Promise<DefinitionsAttached> {
    const port = this.codeIntelPort();
    const found = await definitionsForSelection(port, spec, { budgetTokens, countTokens: (t) => this.count(t), signal });
    const selection = found.selection;
    const out: DefinitionsAttached = {
      rejections: found.rejections,
      skippedForBudget: found.skippedForBudget.length,
      leftOut: found.skippedForBudget.map((s) => s.symbol),
      bodiesLeftOut: found.bodiesLeftOut.length,
    };
    if (!selection) return out;
    const tokenizer = this.context().tokenizer;
    if (tokenizer.warm) await tokenizer.warm(selection.content, signal);
    const definitions = found.definitions.map((d) => ({ input: d.input, symbol: d.symbol, usedBy: d.usedBy, tokens: d.tokens }));
    const leftOut = leftOutViews([...found.skippedForBudget, ...found.bodiesLeftOut]);
    out.chip = this.composer.put(spec, selection, this.count(selection.content), { definitions, leftOut });
    return out;
  }

  /**
   * The files `paths` names and what they import, breadth first, `depth` levels down, within
   * `budgetTokens`: the named files first; a file larger than what is left goes in as its outline.
   */
  async filesWithImports(paths: readonly string[], depth: number, budgetTokens: number, signal?: AbortSignal): Promise<ImportsAttached> {
    const port = this.codeIntelPort();
    const closure = await filesWithImports(port, paths, { depth, budgetTokens, countTokens: (t) => this.count(t), signal });
    const out: ImportsAttached = {
      chips: [],
      outlines: 0,
      names: closure.names.length,
      leftOut: closure.names.reduce((n, m) => n + m.skippedForBudget.length, 0),
      rejections: closure.rejections,
      skipped: closure.skipped.length,
    };
    for (const f of closure.files) {
      const outline = f.as === 'outline';
      // The declarations this file names of the large modules it imports go with its chip, as a selection's definitions do.
      const names = closure.names.filter((n) => n.importedBy === f.path);
      const definitions = names.flatMap((n) =>
        n.definitions.map((d) => ({ input: d.input, symbol: d.symbol, usedBy: d.usedBy, tokens: d.tokens })),
      );
      const leftOut = leftOutViews(names.flatMap((n) => [...n.skippedForBudget, ...n.bodiesLeftOut]));
      const extras = { ...(outline ? { outline } : {}), ...(definitions.length > 0 || leftOut.length > 0 ? { definitions, leftOut } : {}) };
      out.chips.push(this.composer.put({ kind: 'file', path: f.path }, f.input, f.tokens, extras));
      if (outline) out.outlines++;
    }
    return out;
  }
}
