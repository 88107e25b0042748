/**
 * Pending pins, unpins and removals in the Context Layers tree, shown the moment they are set: the
 * item's row says what the next message does to it (with Undo), and "Next message" lists them with
 * their cost. Pure: decorates the nodes src/services/ledgerTree.ts builds.
 */
import { fmt, type LedgerTreeNode } from './ledgerTree';
import { pendingMessage, pendingStatus, type PendingItem } from './session/pendingCost';
import { baseName, figureLabel } from './treeRowText';

/** The artifact id of a version key (`file:a.ts@v2` → `file:a.ts`). */
export function artifactIdOf(key: string): string {
  return key.replace(/@v\d+$/, '');
}

/** `~1,240 → ~9,870`: the next request's predicted uncached tokens before and after, when predicted. */
function uncachedFigures(p: PendingItem): string | undefined {
  if (p.before === undefined || p.after === undefined) return undefined;
  return p.before === p.after ? `~${fmt(p.after)}` : `~${fmt(p.before)} → ~${fmt(p.after)}`;
}

function pendingRow(p: PendingItem): LedgerTreeNode {
  const figures = uncachedFigures(p);
  const status = pendingStatus(p);
  return {
    id: `next/pending/${p.id}`,
    label: figures ? figureLabel(figures, baseName(p.label)) : baseName(p.label),
    name: p.label,
    description: figures ? `uncached tokens · ${status}` : status,
    tooltip: `${pendingMessage(p)}\n\nUndo takes it back.`,
    icon: p.op === 'detach' || p.op === 'unattach' ? 'removed' : p.kind === 'selection' ? 'selection' : 'file',
    contextValue: 'pending',
    ref: p.id,
    status: p.op === 'pin' ? 'pinned' : 'full',
    accessibility: `${pendingMessage(p)} Undo is available.`,
  };
}

/** Marks one item row with what the next message does to it (a removed item offers Undo instead of Remove). */
function markRow(node: LedgerTreeNode, p: PendingItem): void {
  node.description = `${pendingStatus(p)} · ${node.description ?? ''}`;
  node.accessibility = `${node.accessibility}, ${pendingStatus(p)}`;
  node.tooltip = `${node.tooltip ?? ''}\n\n${pendingMessage(p)}`;
  if (p.op === 'detach') node.icon = 'removed';
  if (p.op === 'pin') node.status = 'pinned';
  if (p.op === 'unpin' && node.status === 'pinned') node.status = 'full';
  node.contextValue = `pending.${node.contextValue}`;
}

function markAll(nodes: readonly LedgerTreeNode[], byId: ReadonlyMap<string, PendingItem>): void {
  for (const node of nodes) {
    if (node.ref && node.contextValue.startsWith('attachment')) {
      const p = byId.get(artifactIdOf(node.ref));
      if (p) markRow(node, p);
    }
    if (node.children) markAll(node.children, byId);
    if (node.lazyChildren) {
      const make = node.lazyChildren;
      node.lazyChildren = () => {
        const kids = make();
        markAll(kids, byId);
        return kids;
      };
    }
  }
}

/** The tree with `pending` shown: under "Next message" (with Undo) and on the rows of the items they act on. */
export function withPending(roots: LedgerTreeNode[], pending: readonly PendingItem[]): LedgerTreeNode[] {
  if (pending.length === 0) return roots;
  const byId = new Map(pending.filter((p) => p.op !== 'unattach').map((p) => [p.id, p]));
  markAll(roots, byId);
  const next = roots.find((n) => n.id === 'next');
  if (next) {
    const rows = pending.map(pendingRow);
    const chips = next.children ?? [];
    next.children = [...rows, ...chips];
    // Its own id while something is pending: the view opens a row it first sees expanded, but keeps
    // a row it knew without children closed.
    next.id = 'next-pending';
    next.expanded = true;
    next.description = chips.length > 0 ? `${next.description ?? ''} · ${pending.length} pending` : `${pending.length} pending`;
    next.accessibility = `${next.accessibility}, ${pending.length} pending changes`;
  }
  return roots;
}
