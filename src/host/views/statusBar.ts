import { WINDOW_SOURCE_TEXT } from '../../services/modelInfo';
import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import { budgetShortText, budgetText, formatInt, formatPercent } from '../../common/numberFormat';
import type { MeterView } from '../../protocol/messages';
import { VIEW_IDS } from '../commands/commandIds';

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
    // The panel's meter and Context Layers write the same figures with the same formatter.
    const pct = formatPercent(meter.used, meter.budget);
    const cached = meter.lastCachedShare !== undefined ? `${formatPercent(meter.lastCachedShare)} cached` : '';
    this.item.text = `$(layers) ${budgetShortText(meter.used, meter.budget)}${cached ? ` · ${cached}` : ''}`;
    this.item.backgroundColor =
      meter.level === 'warn'
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : meter.level === 'pruned' || meter.level === 'over'
          ? new vscode.ThemeColor('statusBarItem.errorBackground')
          : undefined;
    const md = new vscode.MarkdownString(undefined, false);
    md.appendMarkdown(
      `**Strata context** — ${budgetText(meter.used, meter.budget, meter.contextWindow)}: ${formatInt(meter.used)} of ${formatInt(meter.budget)} tokens (${pct})${meter.estimated ? ', estimated' : ''}\n\n`,
    );
    md.appendMarkdown(
      `Budget = ${formatInt(meter.contextWindow)} window${meter.windowSource ? ` (${WINDOW_SOURCE_TEXT[meter.windowSource]})` : ''} − ${formatInt(meter.reservedOutput)} reserved output − ${formatInt(meter.margin)} margin\n\n`,
    );
    md.appendMarkdown(`Warn at ${meter.warnPercent}%, compact at ${meter.compactPercent}% down to ${meter.targetPercent}%`);
    if (meter.lastCachedShare !== undefined)
      md.appendMarkdown(`\n\nLast request: ${formatPercent(meter.lastCachedShare)} served from the prompt cache`);
    if (meter.level === 'pruned') md.appendMarkdown('\n\nPruning ran for the last request (see Context Layers).');
    this.item.tooltip = md;
    this.item.accessibilityInformation = {
      label: `Strata context: ${budgetText(meter.used, meter.budget, meter.contextWindow)}, ${pct} of the budget used${cached ? `, ${cached}` : ''}`,
    };
  }
}
