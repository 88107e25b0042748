/**
 * The benchmark's pure parts: the markdown table and the SVG chart of a tiny report, the stats helper,
 * and the target evaluation.
 */
import * as assert from 'node:assert/strict';
import type { ReplayReport, StrategyReport, TurnReport } from '../../../bench/replay';
import { markdownTable, niceMax, svgChart, escapeXml } from '../../../bench/charts';
import { formatInt, stats } from '../../../bench/perf/stats';
import { needsPruning } from '../../../bench/bench';
import type { TrajectoryResult } from '../../../bench/benchResults';
import { evaluateTargets } from '../../../bench/targets';
import { limitsForBudget } from '../../../bench/promptTsxCompare';
import { computeBudget } from '../../../src/engine/budget';
import { generateConversation, prng } from '../../../bench/perf/generate';

function turn(n: number, prompt: number, oa: number, read: number, write: number, extra: Partial<TurnReport> = {}): TurnReport {
  return {
    turn: n,
    layers: { L1: 10, L2: 0, L3: 0, L4: 0, L5: prompt - 10 },
    promptTokens: prompt,
    cached: { openai: oa, anthropic: { read, write } },
    limit: { openai: oa, anthropic: read },
    rejections: [],
    pruned: [],
    prefixBreak: false,
    violations: [],
    budget: 100_000,
    ...extra,
  };
}

function strategy(
  name: StrategyReport['name'],
  turns: TurnReport[],
  cost: { openai: number; anthropic: number },
  eff = { openai: 1, anthropic: 1 },
  extra: Partial<StrategyReport['totals']> = {},
): StrategyReport {
  const sum = (f: (t: TurnReport) => number) => turns.reduce((n, t) => n + f(t), 0);
  const prompt = sum((t) => t.promptTokens);
  const oa = sum((t) => t.cached.openai);
  const read = sum((t) => t.cached.anthropic.read);
  const write = sum((t) => t.cached.anthropic.write);
  return {
    name,
    turns,
    totals: {
      promptTokens: prompt,
      cached: { openai: oa, anthropic: { read, write } },
      uncached: { openai: prompt - oa, anthropic: prompt - read },
      limit: { openai: oa, anthropic: read },
      prefixBreaks: 0,
      pruned: 0,
      violations: 0,
      overBudgetTurns: 0,
      skippedTurns: 0,
      ...extra,
    },
    efficiency: eff,
    costUnits: cost,
  };
}

/** A two-turn report: the default layout and the inline baseline. */
function tinyReport(): ReplayReport {
  return {
    trajectory: 'tiny <&> "chat"',
    strategies: [
      strategy('transcript', [turn(1, 1500, 0, 0, 1500), turn(2, 3000, 1408, 1500, 1500)], { openai: 1732.8, anthropic: 5025 }),
      strategy(
        'inline-every-turn',
        [turn(1, 1500, 0, 0, 1500), turn(2, 3200, 0, 0, 3200)],
        { openai: 4700, anthropic: 5875 },
        { openai: 1, anthropic: 0 },
        { overBudgetTurns: 1 },
      ),
    ],
    timings: {},
  };
}

/** A small XML well-formedness check: balanced tags, quoted attributes, escaped text. */
function checkWellFormed(xml: string): { elements: Map<string, number> } {
  const elements = new Map<string, number>();
  const stack: string[] = [];
  const re = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  let roots = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    assert.ok(!/&(?!(?:amp|lt|gt|quot|apos|#\d+);)/.test(text), `unescaped & in text: ${text.slice(0, 40)}`);
    assert.ok(!text.includes('>'), `stray > in text: ${text.slice(0, 40)}`);
    if (lt < 0) break;
    re.lastIndex = lt;
    const m = re.exec(xml);
    assert.ok(m, `malformed tag at ${lt}: ${xml.slice(lt, lt + 60)}`);
    const [whole, closing, name, , selfClosing] = m;
    if (closing) {
      assert.strictEqual(stack.pop(), name, `</${name}> closes the wrong element`);
    } else {
      if (stack.length === 0) roots++;
      elements.set(name, (elements.get(name) ?? 0) + 1);
      if (!selfClosing) stack.push(name);
    }
    i = lt + whole.length;
  }
  assert.deepStrictEqual(stack, [], 'every element is closed');
  assert.strictEqual(roots, 1, 'one root element');
  return { elements };
}

describe('bench: stats helper', () => {
  it('min / median / p95 / max on known arrays', () => {
    assert.deepStrictEqual(stats([]), { n: 0, min: 0, median: 0, p95: 0, max: 0 });
    assert.deepStrictEqual(stats([7]), { n: 1, min: 7, median: 7, p95: 7, max: 7 });
    assert.deepStrictEqual(stats([3, 1, 2]), { n: 3, min: 1, median: 2, p95: 3, max: 3 });
    // Even count: the median is the mean of the two middle samples.
    assert.deepStrictEqual(stats([4, 1, 3, 2]), { n: 4, min: 1, median: 2.5, p95: 4, max: 4 });
    // 1..100: nearest-rank p95 is the 95th sample.
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    assert.deepStrictEqual(stats(hundred), { n: 100, min: 1, median: 50.5, p95: 95, max: 100 });
    // 1..20: p95 = ceil(0.95 · 20) = 19th sample.
    assert.strictEqual(stats(Array.from({ length: 20 }, (_, i) => i + 1)).p95, 19);
    // Rounded to 3 decimals by default; the input is not reordered.
    const xs = [0.1 + 0.2, 1 / 3];
    assert.deepStrictEqual(stats(xs), { n: 2, min: 0.3, median: 0.317, p95: 0.333, max: 0.333 });
    assert.deepStrictEqual(xs, [0.1 + 0.2, 1 / 3]);
  });

  it('formats integers with thousands separators independently of the locale', () => {
    assert.strictEqual(formatInt(0), '0');
    assert.strictEqual(formatInt(999), '999');
    assert.strictEqual(formatInt(1000), '1,000');
    assert.strictEqual(formatInt(1234567), '1,234,567');
    assert.strictEqual(formatInt(-42000), '-42,000');
  });
});

describe('bench: markdown table', () => {
  it('one row per strategy, the default in bold, cost ratios against inline-every-turn (exact)', () => {
    const expected = [
      '### tiny <&> "chat"',
      '',
      '2 turns, budget 100,000 tokens. OA = OpenAI cache model, AN = Anthropic cache model (docs/design.md#replay); ratios are cost units ÷ those of `inline-every-turn`.',
      '',
      '| strategy | prompt tokens | cached (OA) | uncached (OA) | cost units OA | efficiency OA | read/write (AN) | cost units AN | efficiency AN | prefix breaks | cuts | cost OA vs inline | cost AN vs inline |',
      '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
      '| **transcript** (default) | 4,500 | 1,408 | 3,092 | 1732.8 | 1.000 | 1,500 / 3,000 | 5025.0 | 1.000 | 0 | 0 | 0.369× | 0.855× |',
      '| inline-every-turn | 4,700 | 0 | 4,700 | 4700.0 | 1.000 | 0 / 4,700 | 5875.0 | 0.000 | 0 | 0 | 1.000× | 1.000× |',
      '',
      '- inline-every-turn is over the budget in 1 turn (baselines are never pruned).',
      '',
    ].join('\n');
    assert.strictEqual(markdownTable(tinyReport(), 'transcript'), expected);
  });

  it('without the baseline the ratio columns say so', () => {
    const r = tinyReport();
    r.strategies = r.strategies.slice(0, 1);
    const row = markdownTable(r, 'library')
      .split('\n')
      .find((l) => l.startsWith('| transcript'));
    assert.ok(row?.endsWith('| — | — |'), row);
  });
});

describe('bench: SVG chart', () => {
  it('is well-formed XML with one cached and one uncached bar per turn, strategy and cache model', () => {
    const r = tinyReport();
    const svg = svgChart(r);
    const { elements } = checkWellFormed(svg);
    assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
    const cached = svg.match(/<rect class="bar cached"/g) ?? [];
    const uncached = svg.match(/<rect class="bar uncached"/g) ?? [];
    // 2 panels (OpenAI, Anthropic) × 2 turns × 2 strategies.
    assert.strictEqual(cached.length, 8);
    assert.strictEqual(uncached.length, 8);
    assert.strictEqual(svg.match(/<g class="panel"/g)?.length, 2);
    assert.ok((elements.get('title') ?? 0) >= 9, 'a tooltip per bar pair plus the chart title');
    // The trajectory name is escaped, legend names every strategy.
    assert.ok(svg.includes('tiny &lt;&amp;&gt; &quot;chat&quot;'));
    assert.ok(!svg.includes('tiny <&>'));
    for (const s of r.strategies) assert.ok(svg.includes(`>${s.name}</text>`), s.name);
    // Same report, same bytes.
    assert.strictEqual(svgChart(tinyReport()), svg);
  });

  it('bar heights follow the data: cached + uncached = the prompt, on a round axis', () => {
    const svg = svgChart(tinyReport());
    // Axis maximum: niceMax(3200) = 5000; panel height 200 px, so 1,408 cached tokens = 56.32 px;
    // The chart is 635 px wide (the title needs it): a plot of 555 px, one slot of 277.5 px per turn, the
    // 16 px group centred in it, so turn 2's first bar is at 64 + 277.5 + 130.75 = 472.25; baseline y = 92 + 200.
    assert.strictEqual(niceMax(3200), 5000);
    assert.ok(svg.includes('class="bar cached" x="472.3" y="235.68" width="7" height="56.32" fill="#2ca02c"'), 'transcript turn 2, OpenAI');
    assert.ok(svg.includes('class="bar uncached" x="472.3" y="172.00" width="7" height="63.68" fill="#98df8a"'));
    assert.ok(svg.includes('>5k</text>'));
  });

  it('niceMax and escapeXml', () => {
    assert.deepStrictEqual([0, 1, 7, 12, 20, 21, 240, 999, 1001, 620815].map(niceMax), [1, 1, 10, 20, 20, 25, 250, 1000, 2000, 1000000]);
    assert.strictEqual(escapeXml('a<b>&"c"'), 'a&lt;b&gt;&amp;&quot;c&quot;');
  });
});

describe('bench: targets', () => {
  function result(name: string, report: ReplayReport): TrajectoryResult {
    return { name, turns: report.strategies[0].turns.length, budget: 100_000, needsPruning: needsPruning(report, 'transcript'), report };
  }

  it('efficiency applies only to trajectories that need no pruning; the cost ratio is read from long-session-20', () => {
    const ok = tinyReport();
    ok.trajectory = 'long-session-20';
    const pruned = tinyReport();
    pruned.trajectory = 'budget-pressure';
    pruned.strategies[0].efficiency = { openai: 0.9, anthropic: 0.8 };
    pruned.strategies[0].turns[1].pruned = [
      { layer: 'L2', item: 'file:a', preTokens: 10, postTokens: 0, kept: '', lost: '', reason: 'budget' },
    ];
    const detachedOnly = tinyReport();
    detachedOnly.trajectory = 'detach';
    detachedOnly.strategies[0].efficiency = { openai: 0.97, anthropic: 1 };
    detachedOnly.strategies[0].turns[1].pruned = [
      { layer: 'L2', item: 'file:a', preTokens: 10, postTokens: 0, kept: '', lost: '', reason: 'detached' },
    ];
    const targets = evaluateTargets([result('long-session-20', ok), result('budget-pressure', pruned), result('detach', detachedOnly)], {});
    const byId = new Map(targets.map((t) => [t.id, t]));
    assert.strictEqual(byId.get('efficiency:long-session-20')?.status, 'met');
    assert.strictEqual(byId.get('efficiency:budget-pressure')?.status, 'n/a');
    assert.strictEqual(byId.get('efficiency:detach')?.status, 'missed', "a detach is the user's cut, not pruning");
    assert.match(byId.get('efficiency:detach')!.note!, /turns below their limit/);
    // 1732.8 / 4700 = 0.369 > 0.35: missed, with the numbers.
    const cost = byId.get('cost:long-session-20')!;
    assert.strictEqual(cost.status, 'missed');
    assert.strictEqual(cost.measured, 'OA 0.369×, AN 0.855×');
  });
});

describe('bench: helpers', () => {
  it('limitsForBudget gives a window whose budget is exactly the one asked for', () => {
    for (const b of [500, 10_696, 21_392, 32_088, 49_000, 122_904]) {
      assert.strictEqual(computeBudget(limitsForBudget(b)), b, String(b));
    }
  });

  it('the generated conversation is deterministic and has what it promises', () => {
    const a = generateConversation({ turns: 40, fileBytes: 200_000 });
    const b = generateConversation({ turns: 40, fileBytes: 200_000 });
    assert.deepStrictEqual(a, b);
    assert.strictEqual(a.trajectory.turns.length, 40);
    assert.ok(a.info.fileBytes >= 200_000);
    // Edits every 8 turns, selections every 5, in the first 20 turns; the last 20 repeat them.
    assert.strictEqual(a.info.edits, 4);
    assert.strictEqual(a.info.selections, 8);
    const off = generateConversation({ turns: 40, fileBytes: 200_000, mirrorLast: 0 });
    assert.strictEqual(off.info.edits, 5, 'mirrorLast: 0 draws every turn');
    // Every file is attached at some turn; all text is ASCII.
    const attached = new Set(a.trajectory.turns.flatMap((t) => (t.attach ?? []).map((x) => x.file).filter(Boolean)));
    for (const p of Object.keys(a.trajectory.files)) assert.ok(attached.has(p), p);
    assert.ok(
      Object.values(a.trajectory.files).every((v) => typeof v === 'string' && [...(v as string)].every((ch) => ch.charCodeAt(0) < 0x80)),
    );
    const r = prng(1);
    assert.deepStrictEqual(
      [r(), r()],
      [
        prng(1)(),
        (() => {
          const q = prng(1);
          q();
          return q();
        })(),
      ],
    );
  });

  it("the generated conversation's last 20 turns do what its first 20 did", () => {
    const { trajectory, info } = generateConversation({ turns: 100, fileBytes: 700_000 });
    assert.ok(info.fileBytes >= 700_000, String(info.fileBytes));
    const files = trajectory.files as Record<string, string>;
    const versions = new Map(Object.entries(files));
    const seen = new Set<string>();
    // As many new files of the same sizes, as many re-attachments and selection lines, an edit of a
    // file of about the same size, messages and replies of the same lengths.
    const shape = (i: number) => {
      const t = trajectory.turns[i];
      const edited = Object.keys(t.edits ?? {}).map((p) => versions.get(p)!.length);
      for (const [p, v] of Object.entries(t.edits ?? {})) versions.set(p, v as string);
      const fresh = (t.attach ?? []).flatMap((x) => (x.file && !seen.has(x.file) ? [files[x.file].length] : []));
      for (const x of t.attach ?? []) if (x.file) seen.add(x.file);
      const sel = (t.attach ?? []).flatMap((x) => (x.selection ? [x.selection.endLine - x.selection.startLine] : []));
      return {
        files: (t.attach ?? []).filter((x) => x.file).length,
        fresh,
        sel,
        edited,
        user: t.user.length - String(i + 1).length,
        reply: t.reply.length,
      };
    };
    const all = trajectory.turns.map((_, i) => shape(i));
    const early = all.slice(0, 20);
    const late = all.slice(80);
    const sizeOf = (xs: typeof all) => xs.map((x) => ({ ...x, edited: x.edited.length }));
    assert.deepStrictEqual(sizeOf(late), sizeOf(early));
    for (let k = 0; k < 20; k++)
      for (let j = 0; j < early[k].edited.length; j++)
        assert.ok(
          Math.abs(late[k].edited[j] - early[k].edited[j]) <= 0.1 * early[k].edited[j],
          `turn ${81 + k}: edits a file of ${late[k].edited[j]} characters against ${early[k].edited[j]}`,
        );
    assert.ok(
      early.some((x) => x.fresh.length > 0) &&
        early.some((x) => x.files > x.fresh.length) &&
        early.some((x) => x.edited.length > 0) &&
        early.some((x) => x.sel.length > 0),
    );
    // Every file is attached at some turn.
    for (const p of Object.keys(files)) assert.ok(seen.has(p), p);
  });
});
