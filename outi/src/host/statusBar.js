"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.MeterStatusBar = void 0;
exports.formatTokens = formatTokens;
const vscode = __importStar(require("vscode"));
const lifecycle_1 = require("../common/lifecycle");
const commandIds_1 = require("./commandIds");
/** Compact token count: 950, 12.3k, 1.2M. */
function formatTokens(n) {
    if (n < 1000)
        return String(n);
    if (n < 1_000_000)
        return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
    return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}
/** The context meter in the status bar: tokens of the next request ÷ budget; opens the panel. */
class MeterStatusBar extends lifecycle_1.Disposable {
    item;
    constructor() {
        super();
        this.item = this._register(vscode.window.createStatusBarItem('strata-meter', vscode.StatusBarAlignment.Right, 100));
        this.item.name = 'Strata context meter';
        this.item.command = { title: 'Open Strata', command: `${commandIds_1.VIEW_IDS.chat}.focus` };
        this.item.text = '$(layers) Strata';
        this.item.tooltip = 'Strata: open the chat panel';
        this.item.show();
    }
    update(meter) {
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
        md.appendMarkdown(`**Strata context** — ${meter.used.toLocaleString('en-US')} of ${meter.budget.toLocaleString('en-US')} tokens (${pct}%)${meter.estimated ? ', estimated' : ''}\n\n`);
        md.appendMarkdown(`Budget = ${meter.contextWindow.toLocaleString('en-US')} window − ${meter.reservedOutput.toLocaleString('en-US')} reserved output − ${meter.margin.toLocaleString('en-US')} margin\n\n`);
        md.appendMarkdown(`Warn at ${meter.warnPercent}%, compact at ${meter.compactPercent}% down to ${meter.targetPercent}%`);
        if (meter.lastCachedShare !== undefined)
            md.appendMarkdown(`\n\nLast request: ${Math.round(meter.lastCachedShare * 100)}% served from the prompt cache`);
        if (meter.level === 'pruned')
            md.appendMarkdown('\n\nPruning ran for the last request (see Context Layers).');
        this.item.tooltip = md;
        this.item.accessibilityInformation = { label: `Strata context: ${pct} percent of the budget used${cached ? `, ${cached.replace(' · ', '')}` : ''}` };
    }
}
exports.MeterStatusBar = MeterStatusBar;
//# sourceMappingURL=statusBar.js.map