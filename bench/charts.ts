/**
 * Rendering of the benchmark's results: markdown tables (one per trajectory) and a hand-written SVG
 * chart per trajectory (per turn, cached vs uncached prompt tokens of each strategy, under each cache
 * model). Pure functions of a replay report: the same report gives byte-identical output.
 */
import type { ReplayReport, StrategyReport } from './replay';
import { formatInt } from './perf/stats';

const BASELINE = 'inline-every-turn';

function fixed(x: number, digits: number): string {
  return x.toFixed(digits);
}

function ratio(x: number, base: number | undefined): string {
  return base && base > 0 ? `${fixed(x / base, 3)}×` : '—';
}

/** The markdown table of one trajectory's strategies, with cost ratios against inline-every-turn. */
export function markdownTable(report: ReplayReport, defaultLayout: string): string {
  const base = report.strategies.find((s) => s.name === BASELINE);
  const budget = report.strategies[0]?.turns[0]?.budget ?? 0;
  const turns = report.strategies[0]?.turns.length ?? 0;
  const lines: string[] = [];
  lines.push(`### ${report.trajectory}`, '');
  lines.push(
    `${turns} turns, budget ${formatInt(budget)} tokens. OA = OpenAI cache model, AN = Anthropic cache model (docs/design.md#replay); ratios are cost units ÷ those of \`${BASELINE}\`.`,
    '',
  );
  lines.push(
    '| strategy | prompt tokens | cached (OA) | uncached (OA) | cost units OA | efficiency OA | read/write (AN) | cost units AN | efficiency AN | prefix breaks | cuts | cost OA vs inline | cost AN vs inline |',
  );
  lines.push('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
  const notes: string[] = [];
  for (const s of report.strategies) {
    const x = s.totals;
    const name = s.name === defaultLayout ? `**${s.name}** (default)` : s.name;
    lines.push(
      `| ${name} | ${formatInt(x.promptTokens)} | ${formatInt(x.cached.openai)} | ${formatInt(x.uncached.openai)} | ${fixed(s.costUnits.openai, 1)} | ${fixed(s.efficiency.openai, 3)} | ` +
        `${formatInt(x.cached.anthropic.read)} / ${formatInt(x.cached.anthropic.write)} | ${fixed(s.costUnits.anthropic, 1)} | ${fixed(s.efficiency.anthropic, 3)} | ` +
        `${x.prefixBreaks} | ${x.pruned} | ${ratio(s.costUnits.openai, base?.costUnits.openai)} | ${ratio(s.costUnits.anthropic, base?.costUnits.anthropic)} |`,
    );
    if (x.overBudgetTurns > 0)
      notes.push(
        `${s.name} is over the budget in ${x.overBudgetTurns} turn${x.overBudgetTurns === 1 ? '' : 's'} (baselines are never pruned).`,
      );
    if (x.skippedTurns > 0)
      notes.push(
        `${s.name} sent nothing in ${x.skippedTurns} turn${x.skippedTurns === 1 ? '' : 's'} (the essentials alone exceed the budget).`,
      );
    if (x.violations > 0) notes.push(`${s.name}: ${x.violations} invariant violation${x.violations === 1 ? '' : 's'}.`);
  }
  if (notes.length > 0) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// SVG

/** Solid (cached) and light (uncached) colour per strategy; others cycle through the extra pairs. */
const PALETTE: Record<string, [string, string]> = {
  library: ['#1f77b4', '#aec7e8'],
  transcript: ['#2ca02c', '#98df8a'],
  'inline-every-turn': ['#d62728', '#ff9896'],
  'latest-copy': ['#9467bd', '#c5b0d5'],
};
const EXTRA: [string, string][] = [
  ['#8c564b', '#c49c94'],
  ['#e377c2', '#f7b6d2'],
  ['#7f7f7f', '#c7c7c7'],
];

function colors(s: StrategyReport, i: number): [string, string] {
  return PALETTE[s.name] ?? EXTRA[i % EXTRA.length];
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A round axis maximum ≥ x: 1, 2, 2.5 or 5 × 10^k. */
export function niceMax(x: number): number {
  if (x <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= x) return m * p;
  return 10 * p;
}

function tickLabel(v: number): string {
  if (v >= 1_000_000) return `${+(v / 1_000_000).toFixed(2)}M`;
  if (v >= 1000) return `${+(v / 1000).toFixed(1)}k`;
  return String(v);
}

type CacheModel = 'openai' | 'anthropic';

function cachedOf(s: StrategyReport, turn: number, model: CacheModel): number {
  const t = s.turns[turn];
  return model === 'openai' ? t.cached.openai : t.cached.anthropic.read;
}

/**
 * One SVG per trajectory: a panel per cache model; in each, a group of bars per turn, one bar per
 * strategy, stacked cached (solid, bottom) and uncached (light, top). Every bar has a tooltip.
 */
export function svgChart(report: ReplayReport): string {
  const strategies = report.strategies;
  const turns = Math.max(0, ...strategies.map((s) => s.turns.length));
  const bar = 8;
  const groupGap = 10;
  const groupW = strategies.length * bar + groupGap;
  const left = 64;
  const right = 16;
  const top = 92;
  const panelH = 200;
  const panelGap = 64;
  const title = `${report.trajectory}: cached vs uncached prompt tokens per turn`;
  // Wide enough for the bars (at least 480 px of plot) and for the title (~9.5 px per character, bold 15 px).
  const width = Math.max(left + Math.max(turns * groupW, 480) + right, left + Math.ceil(title.length * 9.5) + 20);
  const plotW = width - left - right;
  const slot = turns > 0 ? plotW / turns : plotW;
  const height = top + 2 * panelH + panelGap + 40;
  const maxPrompt = Math.max(1, ...strategies.flatMap((s) => s.turns.map((t) => t.promptTokens)));
  const yMax = niceMax(maxPrompt);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12">`,
  );
  out.push(`<title>${escapeXml(title)}</title>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${left}" y="22" font-size="15" font-weight="600" fill="#222">${escapeXml(title)}</text>`);

  // Legend: one swatch pair per strategy, then what solid and light mean.
  let lx = left;
  const ly = 40;
  strategies.forEach((s, i) => {
    const [solid, light] = colors(s, i);
    out.push(
      `<rect x="${lx}" y="${ly}" width="10" height="10" fill="${solid}"/><rect x="${lx + 10}" y="${ly}" width="10" height="10" fill="${light}"/>`,
    );
    out.push(`<text x="${lx + 26}" y="${ly + 9}" fill="#222">${escapeXml(s.name)}</text>`);
    lx += 34 + s.name.length * 7;
  });
  out.push(
    `<text x="${left}" y="${ly + 27}" fill="#555">solid = cached, light = uncached (OpenAI: cached tokens; Anthropic: cache read)</text>`,
  );

  (['openai', 'anthropic'] as const).forEach((model, p) => {
    const y0 = top + p * (panelH + panelGap);
    const yBase = y0 + panelH;
    const scale = (v: number) => (v / yMax) * panelH;
    out.push(`<g class="panel" data-cache="${model}">`);
    out.push(
      `<text x="${left}" y="${y0 - 8}" font-weight="600" fill="#222">${model === 'openai' ? 'OpenAI cache model' : 'Anthropic cache model'}</text>`,
    );
    for (let k = 0; k <= 4; k++) {
      const v = (yMax * k) / 4;
      const y = yBase - scale(v);
      out.push(
        `<line x1="${left}" y1="${fixed(y, 1)}" x2="${left + plotW}" y2="${fixed(y, 1)}" stroke="${k === 0 ? '#444' : '#e3e3e3'}" stroke-width="1"/>`,
      );
      out.push(`<text x="${left - 6}" y="${fixed(y + 4, 1)}" text-anchor="end" fill="#555">${tickLabel(v)}</text>`);
    }
    out.push(
      `<text x="14" y="${y0 + panelH / 2}" transform="rotate(-90 14 ${y0 + panelH / 2})" text-anchor="middle" fill="#555">prompt tokens</text>`,
    );
    const labelEvery = turns <= 30 ? 1 : 5;
    for (let t = 0; t < turns; t++) {
      const gx = left + t * slot + (slot - strategies.length * bar) / 2;
      strategies.forEach((s, i) => {
        const [solid, light] = colors(s, i);
        const prompt = s.turns[t]?.promptTokens ?? 0;
        const cached = s.turns[t] ? cachedOf(s, t, model) : 0;
        const hc = scale(cached);
        const hu = scale(prompt - cached);
        const x = gx + i * bar;
        const tip = `${s.name}, turn ${t + 1}: ${formatInt(cached)} cached, ${formatInt(prompt - cached)} uncached of ${formatInt(prompt)}`;
        out.push(
          `<g><title>${escapeXml(tip)}</title>` +
            `<rect class="bar cached" x="${fixed(x, 1)}" y="${fixed(yBase - hc, 2)}" width="${bar - 1}" height="${fixed(hc, 2)}" fill="${solid}"/>` +
            `<rect class="bar uncached" x="${fixed(x, 1)}" y="${fixed(yBase - hc - hu, 2)}" width="${bar - 1}" height="${fixed(hu, 2)}" fill="${light}"/></g>`,
        );
      });
      if ((t + 1) % labelEvery === 0 || t === 0) {
        out.push(
          `<text x="${fixed(gx + (strategies.length * bar) / 2, 1)}" y="${yBase + 15}" text-anchor="middle" fill="#555">${t + 1}</text>`,
        );
      }
    }
    out.push(`<text x="${left + plotW / 2}" y="${yBase + 32}" text-anchor="middle" fill="#555">turn</text>`);
    out.push('</g>');
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
