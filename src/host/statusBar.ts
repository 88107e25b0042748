import { WINDOW_SOURCE_TEXT } from '../services/modelInfo';
import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import type { MeterView } from '../protocol/messages';
import { VIEW_IDS } from './commandIds';

/** Compact token count: 950, 12.3k, 1.2M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** The context meter in the status bar: tokens of the next request ÷ budget; opens the panel. */
export class MeterStatusBar extends Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor() {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('strata-meter', vscode.StatusBarAlignment.Right, 100));
    this.item.name = 'Strata context meter';
    this.item.command = { title: 'Open Strata', command: `${VIEW_IDS.chat}.focus` };
    this.item.text = '$(layers) Strata';
    this.item.tooltip = 'Strata: open the chat panel';
    this.item.show();
  }

  update(meter: MeterView): void {
    const pct = meter.budget > 0 ? Math.round((meter.used / meter.budget) * 100) : 0;
    const cached = meter.lastCachedShare !== undefined ? ` · ${Math.round(meter.lastCachedShare * 100)}% cached` : '';
    this.item.text = `$(layers) ${formatTokens(meter.used)}/${formatTokens(meter.budget)}${cached}`;
    this.item.backgroundColor =
      meter.level === 'warn'
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : meter.level === 'pruned' || meter.level === 'over'
          ? new vscode.ThemeColor('statusBarItem.errorBackground')
          : undefined;
    const md = new vscode.MarkdownString(undefined, false);
    md.appendMarkdown(
      `**Strata context** — ${meter.used.toLocaleString('en-US')} of ${meter.budget.toLocaleString('en-US')} tokens (${pct}%)${meter.estimated ? ', estimated' : ''}\n\n`,
    );
    md.appendMarkdown(
      `Budget = ${meter.contextWindow.toLocaleString('en-US')} window${meter.windowSource ? ` (${WINDOW_SOURCE_TEXT[meter.windowSource]})` : ''} − ${meter.reservedOutput.toLocaleString('en-US')} reserved output − ${meter.margin.toLocaleString('en-US')} margin\n\n`,
    );
    md.appendMarkdown(`Warn at ${meter.warnPercent}%, compact at ${meter.compactPercent}% down to ${meter.targetPercent}%`);
    if (meter.lastCachedShare !== undefined)
      md.appendMarkdown(`\n\nLast request: ${Math.round(meter.lastCachedShare * 100)}% served from the prompt cache`);
    if (meter.level === 'pruned') md.appendMarkdown('\n\nPruning ran for the last request (see Context Layers).');
    this.item.tooltip = md;
    this.item.accessibilityInformation = {
      label: `Strata context: ${pct} percent of the budget used${cached ? `, ${cached.replace(' · ', '')}` : ''}`,
    };
  }
}
