/**
 * The Context Layers tree as data: where every token of a request went. Built from the
 * engine's ledger (typed items, nothing parsed out of rendered text); src/host/views/layersTreeProvider.ts
 * only renders these nodes as TreeItems. Pure: no vscode.
 *
 * Shape:
 *   Last request                 prompt tokens, share cached (turn, budget, reported usage in the tooltip)
 *     L1 System … L5 Your message   tokens (% of budget in the tooltip)
 *       412 · money.ts           tokens and name; status and recoverability; tooltip with path / id / version / hash / reason
 *   Next message                 the chips attached for the next message, with their predicted cost
 *   Requests                     every turn of the chat; each expands into the same breakdown
 *
 * Every row puts its figure where a narrow side bar does not cut it (see ./treeRowText.ts).
 */
import { LAYER_IDS, type LayerId, type LedgerItem, type LedgerNode, type PruneReport } from '../engine/types';
import { formatInt, formatPercent, formatTokens, LAYER_TITLES } from '../common/numberFormat';
import { baseName, figureLabel, shortNames } from './treeRowText';
import { WINDOW_SOURCE_TEXT, type WindowSource } from './modelInfo';

export type ItemStatus = 'full' | 'reference' | 'compacted' | 'summarized' | 'pruned' | 'superseded' | 'pinned' | 'missing';

export type TreeIcon =
  | 'request'
  | 'layer'
  | 'file'
  | 'selection'
  | 'message'
  | 'reply'
  | 'summary'
  | 'system'
  | 'instructions'
  | 'reference'
  | 'pruned'
  | 'next'
  | 'history'
  | 'warning'
  | 'tool'
  | 'definition'
  | 'framing'
  | 'removed';

export interface TreeSource {
  /** Workspace path (`<folder>/<path>` in multi-root) or `untitled:<n>`. */
  path: string;
  startLine?: number;
  endLine?: number;
}

export interface LedgerTreeNode {
  /** Unique in the tree and stable across refreshes of the same request (TreeItem.id). */
  id: string;
  label: string;
  /** What the row stands for, in full (an item's path, range and version): the label shortens it. */
  name?: string;
  description?: string;
  /** Markdown. */
  tooltip?: string;
  icon: TreeIcon;
  /** Menus: `attachment` / `attachment.pinned` (+ `.selection`), `chip` / `chip.pinned`, `request`, `layer`, `info`. */
  contextValue: string;
  /** Artifact version key (chat items) or chip id (next message): what pin / unpin / remove act on. */
  ref?: string;
  /** What "Open Source" reveals. */
  source?: TreeSource;
  status?: ItemStatus;
  recoverable?: boolean;
  /** For screen readers: the whole row as a sentence. */
  accessibility: string;
  children?: LedgerTreeNode[];
  /** Children made when the node is first expanded (earlier requests, the Requests list, collapsed layers). */
  lazyChildren?: () => LedgerTreeNode[];
  expanded?: boolean;
}

/** One request of the chat as the tree shows it. */
export interface RequestRecord {
  turn: number;
  /** The full ledger, when known (requests of this session, or rebuilt on demand). */
  ledger?: LedgerNode;
  /** Rebuilds the ledger of an earlier request when it is not in memory. */
  loadLedger?: () => LedgerNode | undefined;
  promptTokens: number;
  budget: number;
  predictedCached: number;
  /** Provider-reported usage, once the provider answered. */
  reported?: { input: number; cacheRead: number; cacheWrite: number; output: number };
  prefixBreak?: boolean;
  prefixBreakReason?: string;
  outcome?: 'complete' | 'streaming' | 'stopped' | 'error' | 'preview';
  model?: string;
  pruned?: PruneReport[];
  /**
   * Tokens per layer, and of those predicted cached, as saved with the turn: the breakdown shown
   * when the ledger is not held (a request sent before the window opened, or from another window).
   */
  layerTokens?: Partial<Record<LayerId, number>>;
  layerCached?: Partial<Record<LayerId, number>>;
}

/** A chip attached for the next message, with what it will cost. */
export interface NextItem {
  chipId: string;
  kind: 'file' | 'selection';
  label: string;
  /** Tokens the next request spends on it (a full block, or a one-line reference when already sent). */
  tokens: number;
  /** Sent before: the next request references it instead of sending it again. */
  reference: boolean;
  pinned: boolean;
  source: TreeSource;
  /** A selection's definitions, sent with it. */
  definitions?: readonly NextDefinition[];
  /** The first lines of a file over the size limit: `lines` of its `of`. */
  partial?: { lines: number; of: number };
}

/** A declaration a selection chip uses, sent with it (a range of its file). */
export interface NextDefinition {
  label: string;
  symbol: string;
  usedBy: string;
  tokens: number;
  source: TreeSource;
}

function definitionNode(parentId: string, d: NextDefinition): LedgerTreeNode {
  const usedBy = d.usedBy === d.symbol ? '' : ` (through \`${d.usedBy}\`)`;
  return {
    id: `${parentId}/def/${d.label}`,
    label: figureLabel(`+${fmt(d.tokens)}`, baseName(d.label)),
    name: d.label,
    description: `used by selection · ${d.symbol}`,
    tooltip: `**${escapeMd(d.symbol)}** — ${escapeMd(d.label)}\n\nThe selection uses it${usedBy}; its declaration is sent with the selection (${fmt(d.tokens)} tokens), recoverable by reading these lines again.`,
    icon: 'definition',
    contextValue: 'definition',
    source: d.source,
    status: 'full',
    recoverable: true,
    accessibility: `${d.symbol}, ${d.label}, used by the selection, ${fmt(d.tokens)} tokens for the next message`,
  };
}

const NUMBER = new Intl.NumberFormat('en-US');

/** `12,345`: the tree's exact figures, as src/common/numberFormat.ts writes them (a fraction, rare here, as en-US does). */
export function fmt(n: number): string {
  return Number.isSafeInteger(n) ? formatInt(n) : NUMBER.format(n);
}

export function percent(part: number, whole: number): string {
  return formatPercent(part, whole);
}

function statusOf(item: LedgerItem): ItemStatus {
  if (item.status === 'pruned') return 'pruned';
  if (item.segment === 'summary') return 'summarized';
  if (item.missing) return 'missing';
  if (item.status === 'compacted') return 'compacted';
  if (item.essential) return 'pinned';
  if (item.superseded) return 'superseded';
  if (item.status === 'reference') return 'reference';
  return 'full';
}

const STATUS_TEXT: Record<ItemStatus, string> = {
  full: 'full',
  reference: 'reference',
  compacted: 'compacted',
  summarized: 'summarized',
  pruned: 'pruned',
  superseded: 'superseded',
  pinned: 'pinned',
  missing: 'file deleted',
};

/** `path` or `path:L12-30`, then `@v2` for later versions — how a user names an attachment. */
export function itemLabel(item: Pick<LedgerItem, 'label' | 'key' | 'version' | 'artifactKind'>, source?: TreeSource): string {
  let base = item.label;
  if (source) base = source.startLine !== undefined ? `${source.path}:L${source.startLine}-${source.endLine}` : source.path;
  return item.version !== undefined && item.version > 1 ? `${base} @v${item.version}` : base;
}

/** Where an artifact came from, from its id (`file:<path>`, `sel:<path>#L1-L9@hash`, `untitled:<n>`). */
export function sourceOfKey(key: string | undefined): TreeSource | undefined {
  if (!key) return undefined;
  const id = key.replace(/@v\d+$/, '');
  if (id.startsWith('file:')) return { path: id.slice(5) };
  if (id.startsWith('untitled:')) return { path: id };
  const sel = /^sel:(.*)#L(\d+)-L(\d+)@[0-9a-f]+$/.exec(id);
  if (sel) return { path: sel[1], startLine: Number(sel[2]), endLine: Number(sel[3]) };
  return undefined;
}

function iconOf(item: LedgerItem, status: ItemStatus): TreeIcon {
  if (status === 'pruned') return 'pruned';
  switch (item.segment) {
    case 'system':
      return 'system';
    case 'instructions':
      return 'instructions';
    case 'summary':
      return 'summary';
    case 'reply':
      return 'reply';
    case 'user-text':
      return 'message';
    case 'reference':
      return 'reference';
    case 'library-header':
      return 'system';
    case 'tool-call':
    case 'step-text':
    case 'tool-note':
      return 'tool';
    default:
      break;
  }
  if (item.id === 'framing') return 'framing';
  if (item.artifactKind === 'selection') return 'selection';
  if (item.artifactKind === 'tool') return 'tool';
  return 'file';
}

function describeSegmentLabel(item: LedgerItem): string {
  switch (item.segment) {
    case 'user-text':
      return item.turn !== undefined ? `Turn ${item.turn} · your message` : 'Your message';
    case 'reply':
      return item.turn !== undefined ? `Turn ${item.turn} · reply` : 'Reply';
    case 'instructions': {
      const m = /^instructions:\d+:(.*)$/.exec(item.id);
      return m ? `Instructions (${m[1]})` : 'Instructions';
    }
    case 'system':
      return 'Product prompt';
    case 'library-header':
      return 'Library heading';
    case 'tool-call':
      return item.turn !== undefined ? `Turn ${item.turn} · ${item.label}` : item.label.replace(/^tool call/, 'Tool call');
    case 'step-text':
      return item.turn !== undefined ? `Turn ${item.turn} · model text before a tool call` : 'Model text before a tool call';
    case 'tool-note':
      return item.turn !== undefined ? `Turn ${item.turn} · ${item.label}` : item.label.replace(/^./, (c) => c.toUpperCase());
    default:
      return item.label;
  }
}

function itemNode(
  parentId: string,
  item: LedgerItem,
  budget: number,
  index: number,
  pruned: Map<string, PruneReport>,
  shortPath?: string,
): LedgerTreeNode {
  const status = statusOf(item);
  const source = sourceOfKey(item.key);
  const isArtifact = !!item.key;
  const label = isArtifact ? itemLabel(item, source) : describeSegmentLabel(item);
  const short = isArtifact && source ? itemLabel(item, { ...source, path: shortPath ?? baseName(source.path) }) : label;
  const report = item.key ? pruned.get(item.key) : undefined;
  const statusText =
    status === 'pruned' && item.reason
      ? `pruned (${item.reason})`
      : report?.reason === 'fitted' && status === 'compacted'
        ? `cut to fit the window (${report.kept})`
        : STATUS_TEXT[status];
  const recoverable = item.recoverable;
  // What a workspace tool read: marked with the tool, and as recoverable (it can be read again).
  const readByTool = isArtifact && item.tool !== undefined;
  const description = `${statusText}${item.cached ? ' · cached' : ''}${readByTool ? ` · ${item.tool}${recoverable ? ' · recoverable' : ''}` : ''}`;
  const lines: string[] = [
    `**${escapeMd(label)}**`,
    '',
    `${fmt(item.tokens)} tokens (${percent(item.tokens, budget)} of the budget) · ${statusText}`,
  ];
  if (item.turn !== undefined) lines.push('', `Sent in turn ${item.turn}`);
  lines.push(
    '',
    recoverable
      ? readByTool
        ? `Recoverable: read by the model with ${item.tool}; it can read it again, so it is cut first under budget pressure.`
        : isArtifact
          ? 'Recoverable: re-read from the workspace when needed.'
          : 'Recoverable.'
      : isArtifact
        ? 'Not recoverable: a snapshot taken when it was attached; kept verbatim for the whole chat.'
        : 'Not recoverable: part of the conversation.',
  );
  if (item.superseded) lines.push('', 'Superseded: a newer version of this file exists; this one is cut first under budget pressure.');
  if (item.essential) lines.push('', 'Pinned: never pruned.');
  if (item.missing) lines.push('', 'The file was deleted; its last snapshot stays in the conversation.');
  if (item.reason || report) {
    lines.push('', `Cut: ${item.reason ?? report?.reason}`);
    if (report) lines.push(`kept: ${report.kept}`, `lost: ${report.lost}`, `${fmt(report.preTokens)} → ${fmt(report.postTokens)} tokens`);
  }
  const node: LedgerTreeNode = {
    id: `${parentId}/${index}:${item.id}`,
    label: figureLabel(fmt(item.tokens), short),
    name: label,
    description,
    tooltip: lines.join('\n'),
    icon: iconOf(item, status),
    contextValue: 'info',
    status,
    recoverable,
    accessibility: `${label}, ${fmt(item.tokens)} tokens, ${statusText}${readByTool ? `, read by ${item.tool}` : ''}${recoverable ? ', recoverable' : ', not recoverable'}`,
  };
  if (item.key && item.segment !== 'reference' && item.artifactKind === 'tool') {
    // A listing, search results or part of a file: shown, not pinned or removed like an attachment.
    node.contextValue = status === 'pruned' ? 'toolResult.pruned' : 'toolResult';
  } else if (item.key && item.segment !== 'reference') {
    node.ref = item.key;
    const selection = item.artifactKind === 'selection' ? '.selection' : '';
    node.contextValue = status === 'pruned' ? `pruned${selection}` : `attachment${item.essential ? '.pinned' : ''}${selection}`;
  } else if (item.key) {
    node.contextValue = 'reference';
  }
  if (source) node.source = source;
  const details = detailsNode(node.id, item);
  if (details) node.lazyChildren = () => [details];
  return node;
}

/**
 * "Details" under an item: its id, version and content hash, which identify it exactly (for a
 * bug report, or to match Show Last Request) but say little to a reader, so they are one level down.
 */
function detailsNode(parentId: string, item: LedgerItem): LedgerTreeNode | undefined {
  const rows: [string, string][] = [];
  if (item.key) rows.push(['id', item.key.replace(/@v\d+$/, '')]);
  if (item.version !== undefined) rows.push(['version', String(item.version)]);
  if (item.contentHash) rows.push(['content sha256', `${item.contentHash.slice(0, 16)}…`]);
  if (rows.length === 0) return undefined;
  const id = `${parentId}/details`;
  return {
    id,
    label: 'Details',
    description: rows.map(([k]) => k).join(', '),
    icon: 'framing',
    contextValue: 'info',
    accessibility: `Details: ${rows.map(([k, v]) => `${k} ${v}`).join(', ')}`,
    expanded: false,
    children: rows.map(([k, v]) => ({
      id: `${id}/${k}`,
      label: k,
      description: v,
      tooltip: `${k}: \`${v}\``,
      icon: 'framing',
      contextValue: 'info',
      accessibility: `${k}: ${v}`,
    })),
  };
}

/** Items beyond which L2 is shown closed (with its count) instead of open. */
export const OPEN_LAYER_MAX_ITEMS = 40;

/** L1 … L5 of one request, each with its items (made when the layer is first opened, unless it opens by default). */
export function layerNodes(parentId: string, ledger: LedgerNode): LedgerTreeNode[] {
  const pruned = new Map(ledger.pruned.map((p) => [p.item, p]));
  return ledger.layers.map((layer) => {
    const items = layer.items;
    const cached = items.reduce((n, i) => n + (i.cached ? i.tokens : 0), 0);
    // L2 opens by default while it is short: in a long chat it lists hundreds of versions, which
    // would push the next message and the requests out of sight.
    const expanded = layer.id === 'L3' || (layer.id === 'L2' && items.length <= OPEN_LAYER_MAX_ITEMS);
    const node = layerHeader(parentId, layer.id, layer.tokens, cached, ledger.budget, {
      count: !expanded && items.length > OPEN_LAYER_MAX_ITEMS ? ` · ${fmt(items.length)} items` : '',
      items: items.length,
    });
    node.expanded = expanded;
    // A collapsed layer's items are made when it is opened: L4 of a long chat holds thousands.
    const make = () => {
      const short = shortPathsOf(items);
      return items.map((item, i) => itemNode(node.id, item, ledger.budget, i, pruned, short.get(sourceOfKey(item.key)?.path ?? '')));
    };
    if (expanded || items.length === 0) node.children = make();
    else node.lazyChildren = make;
    return node;
  });
}

/** The short name of each file among `items`: its base name, with folders only where two base names are the same. */
function shortPathsOf(items: readonly LedgerItem[]): Map<string, string> {
  const paths = [...new Set(items.flatMap((i) => sourceOfKey(i.key)?.path ?? []))];
  const short = shortNames(paths);
  return new Map(paths.map((p, i) => [p, short[i]]));
}

/** A layer's row: its tokens (its share of the budget and predicted cached part in the tooltip). */
function layerHeader(
  parentId: string,
  layer: LayerId,
  tokens: number,
  cached: number,
  budget: number,
  extra: { count?: string; items?: number; note?: string },
): LedgerTreeNode {
  // The name a reader understands first; the L-number, which docs and Show Last Request use, after the figure.
  const name = LAYER_TITLES[layer];
  const share = percent(tokens, budget);
  return {
    id: `${parentId}/${layer}`,
    label: name,
    description: `${fmt(tokens)} tokens${extra.count ?? ''} · ${layer}`,
    tooltip: `**${name}** (${layer})\n\n${fmt(tokens)} tokens, ${share} of the ${fmt(budget)}-token budget\n\n${fmt(cached)} predicted cached\n\n${LAYER_HELP[layer]}${extra.note ? `\n\n${extra.note}` : ''}`,
    icon: 'layer',
    contextValue: 'layer',
    accessibility: `${name} (${layer}): ${fmt(tokens)} tokens, ${share} of the budget${extra.items !== undefined ? `, ${extra.items} items` : ''}`,
  };
}

const LAYER_HELP: Record<LayerId, string> = {
  L1: 'The product prompt and your instructions; changes only when settings or instruction files change.',
  L2: 'Every attachment version sent in an earlier turn, once.',
  L3: 'This turn: new blocks in full, one-line references to blocks already sent, and the tool calls the model made with what they read.',
  L4: 'Earlier messages and replies (and summaries of older turns).',
  L5: 'What you typed this turn.',
};

function cachedSummary(r: RequestRecord): { text: string; mismatch?: string } {
  const predicted = `${fmt(r.predictedCached)} predicted cached`;
  if (!r.reported) return { text: predicted };
  const reported = r.reported.cacheRead;
  const text = `${predicted} / ${fmt(reported)} reported`;
  if (reported === r.predictedCached) return { text };
  const why =
    reported < r.predictedCached
      ? 'The provider served less from its cache than predicted: cache entries expire (OpenAI after minutes of inactivity, Anthropic after the TTL), a request can land on another server, and the first request of a prefix only writes it.'
      : 'The provider served more from its cache than predicted: it may cache at finer steps than the rule Strata predicts with, or share a cache across chats with the same prefix.';
  return { text: `${text} ⚠`, mismatch: why };
}

/**
 * A request's root row (the last request, or one of "Requests"): `label` on the row, `title` (which
 * names the turn) in the tooltip and for screen readers.
 */
export function requestNode(id: string, title: string, r: RequestRecord, expanded: boolean, label = title): LedgerTreeNode {
  const { text: cached, mismatch } = cachedSummary(r);
  const lines = [
    `**${title}**`,
    '',
    `${fmt(r.promptTokens)} prompt tokens of the ${fmt(r.budget)}-token budget (${percent(r.promptTokens, r.budget)})`,
    '',
    `Cache: ${cached}`,
  ];
  if (r.reported)
    lines.push(
      '',
      `Provider usage: ${fmt(r.reported.input)} in (${fmt(r.reported.cacheRead)} read from cache, ${fmt(r.reported.cacheWrite)} written), ${fmt(r.reported.output)} out`,
    );
  if (mismatch) lines.push('', `⚠ ${mismatch}`);
  if (r.prefixBreak)
    lines.push(
      '',
      `Prefix break: ${r.prefixBreakReason ?? 'the stable prefix of the previous request changed'} (the cache could not serve what followed it).`,
    );
  if (r.model) lines.push('', `Model: ${r.model}`);
  if (r.outcome && r.outcome !== 'complete') lines.push('', `Outcome: ${r.outcome}`);
  if (r.pruned && r.pruned.length > 0) lines.push('', `Pruning: ${r.pruned.length} cut(s)`);
  const share = r.reported ? r.reported.cacheRead / Math.max(1, r.reported.input) : r.predictedCached / Math.max(1, r.promptTokens);
  const node: LedgerTreeNode = {
    id,
    label,
    description: `${formatTokens(r.promptTokens)} · ${Math.round(share * 100)}% cached${r.prefixBreak ? ' · prefix break' : ''}${mismatch ? ' ⚠' : ''}`,
    tooltip: lines.join('\n'),
    icon: mismatch ? 'warning' : 'request',
    contextValue: 'request',
    accessibility: `${title}: ${fmt(r.promptTokens)} of ${fmt(r.budget)} tokens, ${Math.round(share * 100)} percent cached${r.prefixBreak ? ', the prefix changed' : ''}${mismatch ? ', reported cache differs from the prediction' : ''}`,
    // A request whose ledger must be rebuilt from the saved chat opens collapsed: shown open, the
    // tree would ask for its layers as the chat opens, and rebuilding reads the chat up to that turn
    // twice and builds the turn again (hundreds of ms for a long chat). It is rebuilt when opened.
    expanded: expanded && (!!r.ledger || !r.loadLedger),
  };
  // Only a request shown open gets its layers now; the others when opened (a chat sent from this
  // window keeps up to 200 ledgers, and a long chat's ledgers hold thousands of items each).
  if (r.ledger && expanded) node.children = layerNodes(id, r.ledger);
  else if (r.ledger) {
    const ledger = r.ledger;
    node.lazyChildren = () => layerNodes(id, ledger);
  } else if (r.loadLedger) {
    const load = r.loadLedger;
    node.lazyChildren = () => {
      const ledger = load();
      if (ledger) return layerNodes(id, ledger);
      // Not rebuilt (the chat changed on disk): the layer totals saved with the turn, if any.
      if (r.layerTokens && Object.keys(r.layerTokens).length > 0) return savedLayerNodes(id, r.layerTokens, r.layerCached ?? {}, r.budget);
      return [infoNode(`${id}/unavailable`, 'The breakdown of this request is not available.')];
    };
  } else if (r.layerTokens && Object.keys(r.layerTokens).length > 0) {
    const totals = r.layerTokens;
    const cachedBy = r.layerCached ?? {};
    const make = () => savedLayerNodes(id, totals, cachedBy, r.budget);
    if (expanded) node.children = make();
    else node.lazyChildren = make;
  }
  return node;
}

/**
 * L1 … L5 of a request whose ledger this window does not hold (sent before it opened, or from another
 * window): the tokens saved with the turn, without the items.
 */
function savedLayerNodes(
  parentId: string,
  tokens: Partial<Record<LayerId, number>>,
  cachedBy: Partial<Record<LayerId, number>>,
  budget: number,
): LedgerTreeNode[] {
  return LAYER_IDS.map((layer) =>
    layerHeader(parentId, layer, tokens[layer] ?? 0, cachedBy[layer] ?? 0, budget, {
      note: 'Its items are listed for requests sent from this window since it opened.',
    }),
  );
}

export function infoNode(id: string, label: string, tooltip?: string): LedgerTreeNode {
  return { id, label, icon: 'framing', contextValue: 'info', accessibility: label, tooltip };
}

/** "Next message": what is attached for the next message and what it will cost before it is sent. */
export function nextMessageNode(
  items: readonly NextItem[],
  predictedTotal: number | undefined,
  budget: number,
  suggested?: string,
): LedgerTreeNode {
  const cost = items.reduce((n, i) => n + i.tokens + (i.definitions ?? []).reduce((m, d) => m + d.tokens, 0), 0);
  const short = shortNames(items.map((i) => i.source.path));
  const children: LedgerTreeNode[] = items.map((i, k) => ({
    id: `next/${i.chipId}`,
    label: figureLabel(`+${fmt(i.tokens)}`, itemLabel({ label: i.label }, { ...i.source, path: short[k] })),
    name: i.label,
    description: `${i.partial ? `first ${fmt(i.partial.lines)} lines of ${fmt(i.partial.of)}` : i.reference ? 'reference (already sent)' : 'full'}${i.pinned ? ' · pinned' : ''}`,
    tooltip: `**${escapeMd(i.label)}**\n\nThe next request spends ${fmt(i.tokens)} tokens on it (${percent(i.tokens, budget)} of the budget)${i.reference ? ': it was sent before, so a one-line reference goes out instead of the content' : ''}.${i.kind === 'selection' ? '\n\nA selection is a snapshot: kept verbatim for the whole chat.' : ''}`,
    icon: i.kind === 'selection' ? 'selection' : 'file',
    contextValue: `chip${i.pinned ? '.pinned' : ''}${i.kind === 'selection' ? '.selection' : ''}`,
    ref: i.chipId,
    source: i.source,
    status: i.pinned ? 'pinned' : i.reference ? 'reference' : 'full',
    recoverable: i.kind === 'file',
    accessibility: `${i.label}${i.partial ? `, first ${fmt(i.partial.lines)} lines of ${fmt(i.partial.of)}` : ''}, ${fmt(i.tokens)} tokens for the next message${i.pinned ? ', pinned' : ''}`,
    ...(i.definitions?.length ? { children: i.definitions.map((d) => definitionNode(`next/${i.chipId}`, d)), expanded: true } : {}),
  }));
  // The active editor is offered in the panel; saying so here shows it is not part of the request.
  if (suggested)
    children.push({
      ...infoNode(
        'next/suggested',
        baseName(suggested),
        `**${escapeMd(suggested)}**\n\nOffered in the chat panel; sent only if you include it.`,
      ),
      name: suggested,
      description: 'suggested, not included',
      accessibility: `${suggested}, suggested, not included`,
    });
  return {
    id: 'next',
    label: 'Next message',
    description: items.length === 0 ? 'nothing attached' : `+${fmt(cost)} tokens · ${items.length} attached`,
    tooltip:
      items.length === 0
        ? 'Attach files or selections to see their cost before you send.'
        : `What you attached for the next message costs ${fmt(cost)} tokens${predictedTotal !== undefined ? `; the whole next request is about ${fmt(predictedTotal)} tokens of the ${fmt(budget)} budget` : ''}.`,
    icon: 'next',
    contextValue: 'info',
    accessibility: `Next message: ${items.length} attachments, ${fmt(cost)} tokens`,
    children,
    expanded: true,
  };
}

/** A chat's requests for the tree, made only when the Requests list is opened (a chat can have thousands). */
export interface LazyRequests {
  count: number;
  records: () => readonly RequestRecord[];
}

/** "Requests": every request of the chat, newest first; each expands into its layer breakdown. */
function lazyRequests(requests: readonly RequestRecord[] | LazyRequests): LazyRequests {
  return Array.isArray(requests) ? { count: requests.length, records: () => requests } : (requests as LazyRequests);
}

export function requestsNode(requests: readonly RequestRecord[] | LazyRequests): LedgerTreeNode {
  const lazy = lazyRequests(requests);
  return {
    id: 'requests',
    label: 'Requests',
    description: `${lazy.count} in this chat`,
    icon: 'history',
    contextValue: 'info',
    accessibility: `Requests: ${lazy.count} in this chat`,
    // Collapsed: one node per turn of the chat, made when it is opened.
    lazyChildren: () => [...lazy.records()].reverse().map((r) => requestNode(`requests/${r.turn}`, `Turn ${r.turn}`, r, false)),
    expanded: false,
  };
}

/** The model's window as Context Layers shows it: its size, and where that figure came from. */
export interface ModelWindow {
  contextWindow: number;
  reservedOutput: number;
  budget: number;
  source: WindowSource;
  /** `provider · model`. */
  model?: string;
}

const WINDOW_SOURCE_HELP: Record<WindowSource, string> = {
  user: 'Set in your `strata.models` setting.',
  server:
    'Reported by the server that runs the model (or learned from it: it took in fewer tokens than were sent). Set `strata.models` to use another figure.',
  table: "From Strata's table of published limits. Set `strata.models` to use another figure.",
  assumed: "Neither the server nor Strata's table gives this model's window: a conservative one is assumed. Set it with `strata.models`.",
};

function windowNode(w: ModelWindow): LedgerTreeNode {
  const source = WINDOW_SOURCE_TEXT[w.source];
  return {
    id: 'window',
    label: figureLabel(`${formatTokens(w.contextWindow)} window`, source),
    tooltip: `**Context window${w.model ? ` of ${escapeMd(w.model)}` : ''}**: ${fmt(w.contextWindow)} tokens, ${source}\n\n${WINDOW_SOURCE_HELP[w.source]}\n\nBudget = ${fmt(w.contextWindow)} − ${fmt(w.reservedOutput)} reserved output − margin = ${fmt(w.budget)} tokens.`,
    icon: w.source === 'assumed' ? 'warning' : 'layer',
    contextValue: 'info',
    accessibility: `Context window: ${fmt(w.contextWindow)} tokens, ${source}`,
  };
}

/** The whole tree. */
export function buildLedgerTree(input: {
  /** The model's context window and where it came from (the first row). */
  window?: ModelWindow;
  last?: RequestRecord;
  next: readonly NextItem[];
  nextTotal?: number;
  budget: number;
  requests: readonly RequestRecord[] | LazyRequests;
  /** The active editor's file or selection, offered and not included. */
  suggested?: string;
}): LedgerTreeNode[] {
  const roots: LedgerTreeNode[] = [];
  if (input.window) roots.push(windowNode(input.window));
  if (input.last) roots.push(requestNode('last', `Last request · turn ${input.last.turn}`, input.last, true, 'Last request'));
  roots.push(nextMessageNode(input.next, input.nextTotal, input.budget, input.suggested));
  const requests = lazyRequests(input.requests);
  if (requests.count > 0) roots.push(requestsNode(requests));
  return roots;
}

function escapeMd(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+!|<>])/g, '\\$1');
}
