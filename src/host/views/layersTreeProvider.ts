import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';
import type { LedgerTreeNode, TreeIcon } from '../../services/ledgerTree';
import { VIEW_IDS } from '../commands/commandIds';

const ICONS: Record<TreeIcon, string> = {
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
  definition: 'symbol-method',
  framing: 'symbol-misc',
  removed: 'trash',
};

/** Icon colours carry the status (superseded and pruned greyed, pinned highlighted). */
function iconFor(node: LedgerTreeNode): vscode.ThemeIcon {
  const id = node.status === 'pinned' && node.icon !== 'removed' ? 'pinned' : ICONS[node.icon];
  const color =
    node.status === 'pruned' || node.status === 'superseded'
      ? new vscode.ThemeColor('disabledForeground')
      : node.icon === 'warning' || node.icon === 'removed'
        ? new vscode.ThemeColor('problemsWarningIcon.foreground')
        : node.status === 'pinned'
          ? new vscode.ThemeColor('charts.blue')
          : undefined;
  return new vscode.ThemeIcon(id, color);
}

/**
 * The "Context Layers" tree (`strata.layers`). It only renders: the nodes come from
 * src/services/ledgerTree.ts through `source`, rebuilt on `refresh()` (every turn, attach, remove,
 * pin and chat switch). `getChildren` has no side effects beyond expanding lazily built requests
 * and putting up the empty-chat message with an empty chat's rows (see `refresh`).
 */
export class LayersTreeProvider extends Disposable implements vscode.TreeDataProvider<LedgerTreeNode> {
  static readonly viewId = VIEW_IDS.layers;

  private readonly onDidChangeTreeDataEmitter = this._register(new vscode.EventEmitter<LedgerTreeNode | undefined>());
  readonly onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;
  private readonly treeView: vscode.TreeView<LedgerTreeNode>;
  private roots: LedgerTreeNode[] | undefined;
  /**
   * Children made on first expansion, per node object (not per id): a refresh makes new nodes, and a
   * fetch the workbench started on a node of the tree before it (another chat's `requests/1`) must
   * not fill the row of the same id in the new tree.
   */
  private lazy = new WeakMap<LedgerTreeNode, LedgerTreeNode[]>();
  /** The empty-chat message as last set on the view. */
  private message: string | undefined;
  /** The chat has no request since the last refresh: the message goes out with the new rows. */
  private emptyPending = false;

  /**
   * `source`: the tree's nodes (building them may count the next request: a long chat's first is
   * slow). `hasRequest`: whether the chat has a last request to show — cheap, asked at every refresh.
   */
  constructor(
    private readonly source: () => LedgerTreeNode[],
    private readonly hasRequest: () => boolean,
  ) {
    super();
    this.treeView = this._register(
      vscode.window.createTreeView(LayersTreeProvider.viewId, { treeDataProvider: this, showCollapseAll: true }),
    );
    this.showMessage(!this.hasRequest());
    // The workbench makes the tree the first time the view is expanded, after the view's layout:
    // the tree has no height and shows no rows until the workbench lays it out again, which it
    // does 2 s later. Setting the message (even to the same value) lays the tree out at once.
    this._register(
      this.treeView.onDidChangeVisibility((e) => {
        if (e.visible) this.treeView.message = this.message;
      }),
    );
  }

  /** Rebuilds the tree from the current chat. */
  refresh(): void {
    this.roots = undefined;
    this.lazy = new WeakMap();
    // The empty-chat message must never be on screen with a request's rows. The workbench shows a
    // message change and new rows apart (it batches a view's changes over 200 ms), so the message
    // is taken away with the refresh, before the rows of a chat with a request arrive, and put up
    // only once the empty chat's rows were fetched (set with the refresh, it showed above the last
    // chat's request after New Chat; set while fetching, it lingered above the request of a chat
    // switched to). `hasRequest` is the condition `treeNodes` shows a last request on.
    this.emptyPending = !this.hasRequest();
    if (!this.emptyPending) this.showMessage(false);
    this.onDidChangeTreeDataEmitter.fire(undefined);
  }

  private showMessage(empty: boolean): void {
    const message = empty
      ? 'No request yet in this chat. Attach files or a selection and send a message; every token of the request shows here.'
      : undefined;
    if (message === this.message) return;
    this.message = message;
    this.treeView.message = message;
  }

  get view(): vscode.TreeView<LedgerTreeNode> {
    return this.treeView;
  }

  getTreeItem(node: LedgerTreeNode): vscode.TreeItem {
    const hasChildren = (node.children && node.children.length > 0) || !!node.lazyChildren;
    const item = new vscode.TreeItem(
      node.label,
      hasChildren
        ? node.expanded
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None,
    );
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
    if (
      node.source &&
      (node.contextValue.startsWith('attachment') || node.contextValue.startsWith('chip') || node.contextValue.startsWith('pruned'))
    ) {
      item.command = { title: 'Open Source', command: 'strata.openSource', arguments: [node] };
    }
    return item;
  }

  getChildren(node?: LedgerTreeNode): LedgerTreeNode[] {
    if (!node) {
      this.roots ??= this.source();
      if (this.emptyPending) {
        this.emptyPending = false;
        this.showMessage(true);
      }
      return this.roots;
    }
    if (node.children) return node.children;
    if (node.lazyChildren) {
      let kids = this.lazy.get(node);
      if (!kids) {
        kids = node.lazyChildren();
        this.lazy.set(node, kids);
      }
      return kids;
    }
    return [];
  }

  getParent(): undefined {
    return undefined;
  }
}
