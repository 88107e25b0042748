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
exports.LayersTreeProvider = void 0;
const vscode = __importStar(require("vscode"));
const lifecycle_1 = require("../common/lifecycle");
const commandIds_1 = require("./commandIds");
const ICONS = {
    request: 'arrow-swap',
    layer: 'layers',
    file: 'file',
    selection: 'selection',
    message: 'comment',
    reply: 'comment-discussion',
    summary: 'fold',
    system: 'settings-gear',
    instructions: 'book',
    reference: 'references',
    pruned: 'circle-slash',
    next: 'send',
    history: 'history',
    warning: 'warning',
    tool: 'tools',
    framing: 'symbol-misc',
};
/** Icon colours carry the status (superseded and pruned greyed, pinned highlighted). */
function iconFor(node) {
    const id = node.status === 'pinned' ? 'pinned' : ICONS[node.icon];
    const color = node.status === 'pruned' || node.status === 'superseded'
        ? new vscode.ThemeColor('disabledForeground')
        : node.icon === 'warning'
            ? new vscode.ThemeColor('problemsWarningIcon.foreground')
            : node.status === 'pinned'
                ? new vscode.ThemeColor('charts.blue')
                : undefined;
    return new vscode.ThemeIcon(id, color);
}
/**
 * The "Context Layers" tree (`strata.layers`). It only renders: the nodes come from
 * src/services/ledgerTree.ts through `source`, rebuilt on `refresh()` (every turn, attach, remove,
 * pin and chat switch). `getChildren` has no side effects beyond expanding lazily built requests.
 */
class LayersTreeProvider extends lifecycle_1.Disposable {
    source;
    static viewId = commandIds_1.VIEW_IDS.layers;
    onDidChangeTreeDataEmitter = this._register(new vscode.EventEmitter());
    onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;
    treeView;
    roots;
    lazy = new Map();
    constructor(source) {
        super();
        this.source = source;
        this.treeView = this._register(vscode.window.createTreeView(LayersTreeProvider.viewId, { treeDataProvider: this, showCollapseAll: true }));
    }
    /** Rebuilds the tree from the current chat. */
    refresh() {
        this.roots = undefined;
        this.lazy.clear();
        this.onDidChangeTreeDataEmitter.fire(undefined);
    }
    get view() {
        return this.treeView;
    }
    getTreeItem(node) {
        const hasChildren = (node.children && node.children.length > 0) || !!node.lazyChildren;
        const item = new vscode.TreeItem(node.label, hasChildren ? (node.expanded ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed) : vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        item.description = node.description;
        if (node.tooltip) {
            const md = new vscode.MarkdownString(node.tooltip, false);
            md.isTrusted = false;
            md.supportHtml = false;
            item.tooltip = md;
        }
        item.iconPath = iconFor(node);
        item.contextValue = node.contextValue;
        item.accessibilityInformation = { label: node.accessibility, role: hasChildren ? 'treeitem' : undefined };
        if (node.source && (node.contextValue.startsWith('attachment') || node.contextValue.startsWith('chip') || node.contextValue.startsWith('pruned'))) {
            item.command = { title: 'Open Source', command: 'strata.openSource', arguments: [node] };
        }
        return item;
    }
    getChildren(node) {
        if (!node) {
            this.roots ??= this.source();
            this.treeView.message = this.roots.length <= 1 && !this.roots.some((r) => r.id === 'last') ? 'No request yet in this chat. Attach files or a selection and send a message; every token of the request shows here.' : undefined;
            return this.roots;
        }
        if (node.children)
            return node.children;
        if (node.lazyChildren) {
            let kids = this.lazy.get(node.id);
            if (!kids) {
                kids = node.lazyChildren();
                this.lazy.set(node.id, kids);
            }
            return kids;
        }
        return [];
    }
    getParent() {
        return undefined;
    }
}
exports.LayersTreeProvider = LayersTreeProvider;
//# sourceMappingURL=layersTreeProvider.js.map