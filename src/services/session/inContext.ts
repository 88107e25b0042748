/**
 * "In context": what the next message carries besides what is typed and the chips attached to it —
 * the attachments of earlier turns still in the chat, pinned items, instructions files — read from
 * the same predicted envelope the meter and Context Layers show, so the figures agree with the
 * tree's rows. Pure: no vscode.
 */
import type { LedgerItem, LedgerNode } from '../../engine/types';
import type { InContextItemView, InContextView } from '../../protocol/messages';
import { sourceOfKey } from '../ledgerTree';
import type { ChatItemView } from './pendingOperations';

/** `file:src/a.ts@v2` → `file:src/a.ts`. */
function artifactId(key: string): string {
  return key.replace(/@v\d+$/, '');
}

/** `path` or `path:L12-30`, as a chip and Context Layers name it. */
function nameOf(item: LedgerItem): string {
  const src = sourceOfKey(item.key);
  if (!src) return item.label;
  return src.startLine !== undefined ? `${src.path}:L${src.startLine}-${src.endLine}` : src.path;
}

function isAttachment(item: LedgerItem): boolean {
  return (
    item.key !== undefined &&
    item.segment !== 'reference' &&
    item.status !== 'pruned' &&
    (item.artifactKind === 'file' || item.artifactKind === 'selection')
  );
}

/** The instructions file an L1 item stands for (`instructions:<n>:<path>`), if it is one. */
function instructionsPath(item: LedgerItem): string | undefined {
  if (item.segment !== 'instructions') return undefined;
  const m = /^instructions:\d+:(.*)$/.exec(item.id);
  return m ? m[1] : item.label;
}

/**
 * The items of the predicted next request that ride along: instructions (L1), and every attachment
 * version sent before (L2 in the library layout, L4 in the transcript layout), summed per item as the
 * tree lists its versions. This turn's layer (L3) is left out: it is the chips, shown in the composer.
 * Items of the chat with a pending Remove are listed too (with no tokens), so their Undo stays in place.
 */
export function inContextView(ledger: LedgerNode | undefined, chatItems: readonly ChatItemView[]): InContextView {
  const byId = new Map<string, InContextItemView>();
  const order: string[] = [];
  const add = (id: string, make: () => InContextItemView, tokens: number) => {
    let v = byId.get(id);
    if (!v) {
      v = make();
      byId.set(id, v);
      order.push(id);
    }
    v.tokens += tokens;
  };
  const views = new Map(chatItems.map((c) => [c.id, c]));
  for (const layer of ledger?.layers ?? []) {
    if (layer.id === 'L3' || layer.id === 'L5') continue;
    for (const item of layer.items) {
      const path = layer.id === 'L1' ? instructionsPath(item) : undefined;
      if (path !== undefined) {
        add(
          `instructions:${path}`,
          () => ({ ref: `instructions:${path}`, kind: 'instructions', label: path, tokens: 0, pinned: false }),
          item.tokens,
        );
        continue;
      }
      if (!isAttachment(item)) continue;
      const id = artifactId(item.key!);
      const chat = views.get(id);
      add(
        id,
        () => {
          const v: InContextItemView = {
            ref: id,
            kind: item.artifactKind === 'selection' ? 'selection' : 'file',
            label: chat?.label ?? nameOf(item),
            tokens: 0,
            pinned: chat?.pinned ?? item.essential === true,
          };
          if (chat?.pending) v.pending = chat.pending;
          return v;
        },
        item.tokens,
      );
    }
  }
  for (const c of chatItems) {
    if (c.pending !== 'detach' || byId.has(c.id)) continue;
    byId.set(c.id, {
      ref: c.id,
      kind: c.kind === 'selection' ? 'selection' : 'file',
      label: c.label,
      tokens: 0,
      pinned: c.pinned,
      pending: 'detach',
    });
    order.push(c.id);
  }
  const items = order.map((id) => byId.get(id)!);
  return { items, tokens: items.reduce((n, i) => n + i.tokens, 0) };
}

/** Whether `path` (a workspace path, as a chip names it) is already in context: the suggestion chip then says so. */
export function inContextPaths(view: InContextView): Set<string> {
  return new Set(view.items.filter((i) => i.kind === 'file' && i.pending !== 'detach').map((i) => i.label));
}
