import { LAYER_KEYS, type LayerBar, type LayerKey, type MessageView, type MeterView } from '../src/protocol/messages';
import { h } from './dom';
import { formatInt, formatPercent, LAYER_TITLES, layerTitle, promptText } from '../src/common/numberFormat';
import { tooltipTable } from './tooltip';

/**
 * The per-reply stacked bar: one segment per layer (L1…L5, widths proportional to tokens), the part
 * of each segment the provider's cache served shaded (the engine's per-item split, scaled to the
 * reported total), and under it a thin line for the cached share of the whole request.
 */
export function layerBarElement(bar: LayerBar): HTMLElement {
  const segments = h('div', { class: 'bar-segments' });
  for (const key of LAYER_KEYS) {
    const tokens = bar.layers[key] ?? 0;
    if (tokens <= 0) continue;
    const seg = h('span', { class: `bar-seg layer-${key}` });
    seg.style.flexGrow = String(tokens);
    const cached = Math.min(tokens, bar.cachedByLayer?.[key] ?? 0);
    if (cached > 0) {
      const shade = h('span', { class: 'bar-seg-cached' });
      shade.style.width = `${(cached / tokens) * 100}%`;
      seg.append(shade);
    }
    segments.append(seg);
  }
  const cacheFill = h('span', { class: 'bar-cache-fill' });
  cacheFill.style.width = `${bar.total > 0 ? Math.min(100, (bar.cached / bar.total) * 100) : 0}%`;
  return h(
    'div',
    { class: 'layer-bar', tabindex: 0, role: 'img', 'aria-label': barAriaLabel(bar), 'data-testid': 'strata-layer-bar' },
    segments,
    h('div', { class: `bar-cache${bar.cachedReported ? ' reported' : ''}` }, cacheFill),
  );
}

export function barAriaLabel(bar: LayerBar): string {
  const parts = LAYER_KEYS.map((k) => `${layerTitle(k)} ${formatInt(bar.layers[k] ?? 0)}`);
  return `Request ${formatInt(bar.total)} tokens: ${parts.join(', ')}; cached ${formatInt(bar.cached)} (${bar.cachedReported ? 'reported' : 'predicted'})`;
}

function swatchRow(key: LayerKey, tokens: number, total: number, cached: number | undefined): HTMLTableRowElement {
  return h(
    'tr',
    null,
    h('th', { scope: 'row' }, h('span', { class: `swatch layer-${key}`, 'aria-hidden': 'true' }), LAYER_TITLES[key]),
    h('td', null, formatInt(tokens)),
    h('td', { class: 'dim' }, formatPercent(tokens, total)),
    cached === undefined ? null : h('td', { class: 'dim' }, cached > 0 ? `${formatInt(cached)} cached` : ''),
  );
}

/** Tooltip of a reply's bar: tokens per layer, total, cached (reported or predicted), usage. */
export function layerBarTooltip(view: MessageView): HTMLElement {
  const bar = view.bar;
  const box = h('div', { class: 'tooltip-body' });
  if (!bar) return box;
  box.append(h('div', { class: 'tooltip-title' }, 'Request'));
  const table = h('table', { class: 'tooltip-table' });
  const body = h('tbody');
  for (const key of LAYER_KEYS)
    body.append(swatchRow(key, bar.layers[key] ?? 0, bar.total, bar.cachedByLayer ? (bar.cachedByLayer[key] ?? 0) : undefined));
  body.append(h('tr', { class: 'sum' }, h('th', { scope: 'row' }, 'Total'), h('td', null, formatInt(bar.total)), h('td')));
  body.append(
    h(
      'tr',
      null,
      h('th', { scope: 'row' }, 'Cached'),
      h('td', null, formatInt(bar.cached)),
      h('td', { class: 'dim' }, formatPercent(bar.cached, bar.total)),
    ),
  );
  table.append(body);
  box.append(
    table,
    h(
      'div',
      { class: 'tooltip-note' },
      bar.cachedReported
        ? 'Cached tokens as reported by the provider.'
        : 'Cached tokens as predicted by Strata (not reported by the provider).',
    ),
  );
  const u = view.usage;
  if (u) {
    box.append(
      h('div', { class: 'tooltip-title' }, 'Usage (reported)'),
      tooltipTable([
        ['Input', formatInt(u.input)],
        ['Cache read', formatInt(u.cacheRead)],
        ['Cache write', formatInt(u.cacheWrite)],
        ['Output', formatInt(u.output)],
      ]),
    );
  }
  if (view.model) box.append(h('div', { class: 'tooltip-note' }, view.model));
  return box;
}

/** The tokens half of the line under a reply: "9.6k in, 99% cached" (the output and the model are in its tooltip). */
export function usageSummary(view: MessageView): string {
  if (view.bar) return promptText(view.bar.total, view.bar.total > 0 ? view.bar.cached : undefined);
  if (view.usage) return promptText(view.usage.input, view.usage.cacheRead);
  return '';
}

const LEVEL_TEXT: Record<MeterView['level'], string> = {
  ok: 'Within budget.',
  warn: 'Past the warning threshold: the next turns may be compacted.',
  pruned: 'Pruning ran for the last request: some context was cut (see Context Layers).',
  over: 'Over budget: the essential context does not fit; nothing will be sent.',
};

/** Where the window came from, as the meter's tooltip says it (the same words as Context Layers and the status bar). */
const WINDOW_SOURCE: Record<NonNullable<MeterView['windowSource']>, string> = {
  user: 'your setting',
  server: 'from the server',
  table: "Strata's table",
  assumed: 'assumed',
};

/** Tooltip of the context meter: the budget arithmetic, the thresholds, the cached share. */
export function meterTooltip(m: MeterView): Node {
  const pct = (p: number) => `${p}% · ${formatInt(Math.floor((m.budget * p) / 100))}`;
  return h(
    'div',
    { class: 'tooltip-body' },
    h('div', { class: 'tooltip-title' }, 'Context budget'),
    tooltipTable([
      ['Context window', m.windowSource ? `${formatInt(m.contextWindow)} · ${WINDOW_SOURCE[m.windowSource]}` : formatInt(m.contextWindow)],
      ['− Reserved output', formatInt(m.reservedOutput)],
      ['− Safety margin', formatInt(m.margin)],
      ['= Budget', formatInt(m.budget), 'sum'],
      ['Next request (predicted)', `${formatInt(m.used)} · ${formatPercent(m.used, m.budget)}`],
    ]),
    h('div', { class: 'tooltip-title' }, 'Thresholds (of budget)'),
    tooltipTable([
      ['Warn', pct(m.warnPercent)],
      ['Compact', pct(m.compactPercent)],
      ['Target after compaction', pct(m.targetPercent)],
    ]),
    m.lastCachedShare !== undefined
      ? h('div', { class: 'tooltip-note' }, `Last request: ${formatPercent(m.lastCachedShare)} served from the provider's cache.`)
      : null,
    m.estimated ? h('div', { class: 'tooltip-note' }, 'Token counts are estimated: this model has no exact local tokenizer.') : null,
    m.windowSource === 'assumed'
      ? h(
          'div',
          { class: 'tooltip-note', 'data-testid': 'strata-window-assumed' },
          'Neither the server nor Strata’s table gives this model’s context window: a conservative one is assumed. Set it with strata.models.',
        )
      : null,
    m.nextCost ? h('div', { class: 'tooltip-note', 'data-testid': 'strata-next-cost' }, m.nextCost) : null,
    m.cacheExpired ? h('div', { class: 'tooltip-note level-warn' }, `${m.cacheExpired[0].toUpperCase()}${m.cacheExpired.slice(1)}.`) : null,
    h('div', { class: `tooltip-note level-${m.level}` }, LEVEL_TEXT[m.level]),
  );
}
