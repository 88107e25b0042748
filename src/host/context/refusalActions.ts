/**
 * Refused attachments, where the user is: a banner in the panel and, while the panel is not in
 * sight (an attach from the Explorer or the editor's menu), a notification in the editor with the
 * same words. A file over `strata.context.maxFileBytes` offers what can be done: its outline (when
 * its language lists symbols), its first lines (marked "first N lines of M" on its chip, never sent
 * as if whole), or Raise Limit…, which opens the setting. Each way in goes through the same checks
 * as any attachment: isolation (outside the workspace, links out, excludes) before anything is read.
 */
import * as vscode from 'vscode';
import type { Rejection } from '../../engine/isolation';
import type { BannerAction, BannerView, ChipView } from '../../protocol/messages';
import type { ChatSession } from '../../services/chatSession';
import { OUTLINE_TOOL, renderOutline } from '../../services/codeIntel/outline';
import {
  MAX_FILE_BYTES_SETTING,
  REFUSAL_ACTION_TITLES,
  refusalActions,
  refusalsText,
  refusedFilePath,
  type RefusalAction,
} from '../../services/refusalAdvice';
import { formatInt } from '../../common/numberFormat';
import type { HostWorkspace } from './hostWorkspace';
import { fitHeadToRoom } from '../../services/fileHead';

/** Tokens kept free for the question when a file's first lines are fitted to the budget. */
const QUESTION_ROOM = 1000;

/** What the refusals need of the controller: its banners and the attach feedback every attachment gets. */
export interface RefusalHost {
  showBanner(severity: BannerView['severity'], message: string, actions?: BannerAction[], setting?: string, path?: string): string;
  clearBanners(pred?: (b: BannerView) => boolean): void;
  showAttached(added: readonly ChipView[], refused: readonly Rejection[]): void;
}

export interface RefusalDeps {
  session: Pick<ChatSession, 'attachInput' | 'meter' | 'engine' | 'warm'>;
  workspace: Pick<HostWorkspace, 'resolveHead' | 'recheck' | 'outline'>;
  /** Whether the chat is in sight (side view or editor tab). */
  view: { readonly visible: boolean };
  host: () => RefusalHost;
  log: { info(line: string): void };
}

/** Where the editor's notifications go; tests answer in the user's place here, as the model picker's `ui`. */
export interface RefusalUi {
  warn(text: string, ...actions: string[]): Thenable<string | undefined>;
  info(text: string): Thenable<unknown>;
}

const EDITOR_UI: RefusalUi = {
  warn: (text, ...actions) => vscode.window.showWarningMessage(text, ...actions),
  info: (text) => vscode.window.showInformationMessage(text),
};

export class RefusalActions {
  ui: RefusalUi = EDITOR_UI;

  constructor(private readonly deps: RefusalDeps) {}

  /**
   * Shows refusals: those with something to offer each in its own banner with its actions, the others
   * in one; while the panel is hidden, each also as a warning notification (with the same actions).
   */
  report(refused: readonly Rejection[]): void {
    const plain = refused.filter((r) => refusalActions(r).length === 0);
    if (plain.length > 0) {
      const text = refusalsText(plain);
      this.deps.host().showBanner('warning', text);
      if (!this.deps.view.visible) void this.ui.warn(`Strata: ${text}`);
    }
    for (const r of refused) {
      const actions = refusalActions(r);
      if (actions.length === 0) continue;
      const path = refusedFilePath(r);
      this.deps.host().showBanner('warning', r.message, actions, MAX_FILE_BYTES_SETTING, path);
      if (!this.deps.view.visible) void this.notify(r, actions, path);
    }
    for (const r of refused) this.deps.log.info(`refused ${r.attachment}: ${r.reason}`);
  }

  private async notify(r: Rejection, actions: readonly RefusalAction[], path: string | undefined): Promise<void> {
    const chosen = await this.ui.warn(`Strata: ${r.message}`, ...actions.map((a) => REFUSAL_ACTION_TITLES[a]));
    const action = actions.find((a) => REFUSAL_ACTION_TITLES[a] === chosen);
    if (action) await this.perform(action, path);
  }

  /** Does what a refusal's action says for the file `path`; returns the chips added. */
  async perform(action: RefusalAction, path: string | undefined): Promise<ChipView[]> {
    if (action === 'raiseLimit') {
      await vscode.commands.executeCommand('workbench.action.openSettings', MAX_FILE_BYTES_SETTING);
      return [];
    }
    if (!path) throw new Error('That refusal names no file to attach.');
    const chip = action === 'attachHead' ? await this.attachHead(path) : await this.attachOutline(path);
    if (!chip) return [];
    // The refusal is settled: its banner goes (the notification went when it was chosen).
    this.deps.host().clearBanners((b) => b.path === path);
    this.deps.host().showAttached([chip], []);
    if (!this.deps.view.visible) void this.ui.info(`Strata: attached ${chip.label} (${chipWhat(chip)}).`);
    return [chip];
  }

  private refuse(r: Rejection): undefined {
    this.deps.host().showAttached([], [r]);
    return undefined;
  }

  private async attachHead(path: string): Promise<ChipView | undefined> {
    const whole = await this.deps.workspace.resolveHead(path);
    if (!whole.ok) return this.refuse(whole.rejection);
    // The lines that fit what the next message leaves below the compaction target (a little kept for
    // the question): the size limit's worth of a log is millions of tokens, which pruning would drop
    // whole, and a head past the target would be compacted away at once.
    const meter = this.deps.session.meter();
    const room = Math.floor((meter.budget * meter.targetPercent) / 100) - meter.used - QUESTION_ROOM;
    // Each prefix is counted in slices that yield (a few hundred thousand characters each), then read from the memo.
    const count = async (t: string): Promise<number> => {
      await this.deps.session.warm(t);
      return this.deps.session.engine.options.tokenizer.count(t);
    };
    const head = room > 0 ? await fitHeadToRoom(whole, room, count) : undefined;
    if (!head)
      return this.refuse({
        attachment: path,
        reason: 'too-large',
        message: `${path}: not even its first line fits what this chat's budget leaves (${formatInt(Math.max(0, room))} tokens); nothing of it was sent.`,
      });
    const spec = { kind: 'selection' as const, path, startLine: 1, endLine: head.lines };
    return this.deps.session.attachInput(spec, head.input, { partial: { lines: head.lines, of: head.of } });
  }

  private async attachOutline(path: string): Promise<ChipView | undefined> {
    // The path is checked again (outside the workspace, links out, excludes) before its symbols are asked for.
    const refused = await this.deps.workspace.recheck(path, path);
    if (refused) return this.refuse(refused);
    const symbols = await this.deps.workspace.outline(path);
    if (!symbols || symbols.length === 0) {
      const text = `${path} has no outline: its language lists no symbols. Attach its first lines instead, or raise the limit.`;
      this.deps.host().showBanner('warning', text, ['attachHead', 'raiseLimit'], MAX_FILE_BYTES_SETTING, path);
      if (!this.deps.view.visible)
        void this.notify({ attachment: path, reason: 'too-large', message: text }, ['attachHead', 'raiseLimit'], path);
      return undefined;
    }
    const input = { kind: 'tool' as const, tool: OUTLINE_TOOL, uri: path, content: renderOutline(path, symbols) };
    return this.deps.session.attachInput({ kind: 'file', path }, input, { outline: true });
  }
}

/** "first 41,000 lines of 400,000", "outline", or the tokens. */
export function chipWhat(chip: ChipView): string {
  if (chip.partial) return `first ${formatInt(chip.partial.lines)} lines of ${formatInt(chip.partial.of)}`;
  if (chip.outline) return 'its outline';
  return `${formatInt(chip.tokens)} tokens`;
}
