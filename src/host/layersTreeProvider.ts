import * as vscode from 'vscode';
import { Disposable } from '../common/lifecycle';
import { VIEW_IDS } from './commandIds';

/** A row of the Context Layers tree. Filled by the breakdown view in a later version. */
export interface LayerNode {
  readonly label: string;
}

/**
 * The "Context Layers" tree. Renders only; until a request has been built it has no rows and the
 * view shows a message instead.
 */
export class LayersTreeProvider extends Disposable implements vscode.TreeDataProvider<LayerNode> {
  static readonly viewId = VIEW_IDS.layers;

  private readonly onDidChangeTreeDataEmitter = this._register(new vscode.EventEmitter<LayerNode | undefined>());
  readonly onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;
  private readonly treeView: vscode.TreeView<LayerNode>;

  constructor() {
    super();
    this.treeView = this._register(vscode.window.createTreeView(LayersTreeProvider.viewId, { treeDataProvider: this }));
    this.treeView.message = vscode.l10n.t('No request yet');
  }

  getTreeItem(node: LayerNode): vscode.TreeItem {
    return new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
  }

  getChildren(): LayerNode[] {
    return [];
  }
}
