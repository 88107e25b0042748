/** The benchmark's targets: each measured figure against what it should be, with what stands in the way when missed. */
import { DEFAULT_LAYOUT } from './replay';
import { formatInt, round } from './perf/stats';
import { GENERATED_DEFAULTS, LONG_CHAT_UNCUT } from './perf/generate';
import type { PerfResults, Target, ToolTrajectoryResult, TrajectoryResult } from './benchResults';
import { fmtStats, processesNote, scalingNote } from './benchMarkdown';

export function evaluateTargets(econ: TrajectoryResult[], perf: PerfResults, tools: ToolTrajectoryResult[] = []): Target[] {
  const targets: Target[] = [];
  for (const r of tools) {
    const s = r.report.strategies.find((x) => x.name === DEFAULT_LAYOUT);
    const b = r.report.strategies.find((x) => x.name === 'tools-plain');
    if (!s || !b) continue;
    const oa = s.costUnits.openai / b.costUnits.openai;
    const an = s.costUnits.anthropic / b.costUnits.anthropic;
    const met = oa < 1 && an < 1;
    targets.push({
      id: `tools:${r.name}:${r.contextWindow}`,
      description: `${DEFAULT_LAYOUT} costs less than the plain agent transcript on ${r.name} (${r.variant})`,
      measured: `OA ${oa.toFixed(3)}×, AN ${an.toFixed(3)}×; efficiency OA ${s.efficiency.openai.toFixed(3)}, AN ${s.efficiency.anthropic.toFixed(3)}`,
      status: met ? 'met' : 'missed',
      ...(met ? {} : { note: `cuts ${s.totals.pruned}, prefix breaks ${s.totals.prefixBreaks}` }),
    });
  }
  for (const t of econ) {
    const s = t.report.strategies.find((x) => x.name === DEFAULT_LAYOUT);
    if (!s) continue;
    if (t.needsPruning) {
      targets.push({
        id: `efficiency:${t.name}`,
        description: `${DEFAULT_LAYOUT} ≥ 0.98 of the physical limit on ${t.name}`,
        measured: `OA ${s.efficiency.openai.toFixed(3)}, AN ${s.efficiency.anthropic.toFixed(3)} (the target covers trajectories that need no pruning; this one has ${s.totals.pruned} cuts and ${s.totals.prefixBreaks} prefix breaks)`,
        status: 'n/a',
      });
      continue;
    }
    const met = s.efficiency.openai >= 0.98 && s.efficiency.anthropic >= 0.98;
    const worst = s.turns
      .filter((x) => x.limit.openai > 0 && x.cached.openai < x.limit.openai)
      .map((x) => `turn ${x.turn} OA ${x.cached.openai}/${x.limit.openai}`);
    const worstAn = s.turns
      .filter((x) => x.limit.anthropic > 0 && x.cached.anthropic.read < x.limit.anthropic)
      .map((x) => `turn ${x.turn} AN ${x.cached.anthropic.read}/${x.limit.anthropic}`);
    targets.push({
      id: `efficiency:${t.name}`,
      description: `${DEFAULT_LAYOUT} ≥ 0.98 of the physical limit on ${t.name}, both cache models`,
      measured: `OA ${s.efficiency.openai.toFixed(3)}, AN ${s.efficiency.anthropic.toFixed(3)}`,
      status: met ? 'met' : 'missed',
      ...(met ? {} : { note: `turns below their limit: ${[...worst, ...worstAn].slice(0, 8).join('; ')}` }),
    });
  }
  const ls = econ.find((t) => t.name === 'long-session-20');
  if (ls) {
    const s = ls.report.strategies.find((x) => x.name === DEFAULT_LAYOUT)!;
    const b = ls.report.strategies.find((x) => x.name === 'inline-every-turn')!;
    const oa = s.costUnits.openai / b.costUnits.openai;
    const an = s.costUnits.anthropic / b.costUnits.anthropic;
    const met = oa <= 0.35 && an <= 0.35;
    targets.push({
      id: 'cost:long-session-20',
      description: `${DEFAULT_LAYOUT} cost units ≤ 0.35× inline-every-turn on long-session-20`,
      measured: `OA ${oa.toFixed(3)}×, AN ${an.toFixed(3)}×`,
      status: met ? 'met' : 'missed',
      ...(met
        ? {}
        : { note: `prefix breaks ${s.totals.prefixBreaks}, cuts ${s.totals.pruned}; Anthropic writes ${s.totals.cached.anthropic.write}` }),
    });
  }
  if (perf.buildLongSession) {
    const w = perf.buildLongSession.warm;
    const met = w.p95 <= 15;
    const slowest = perf.buildLongSession.warmMedianPerTurn
      .map((ms, i) => ({ ms, turn: i + 1 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3);
    targets.push({
      id: 'build:long-session-20',
      description: 'warm envelope build p95 ≤ 15 ms per turn on long-session-20',
      measured: fmtStats(w),
      status: met ? 'met' : 'missed',
      ...(met ? {} : { note: `slowest turns (median ms): ${slowest.map((x) => `turn ${x.turn} ${x.ms}`).join(', ')}` }),
    });
  }
  if (perf.scaling) {
    const { main: all, allFresh, growth } = perf.scaling;
    const met = all.ratio <= 1.3 && all.ratioP95 <= 1.3;
    const culprits = growth
      .filter((g) => !/^buildTurn /.test(g.fn))
      .slice(0, 6)
      .map((g) => `${g.fn} ${g.earlyMsPerTurn}→${g.lateMsPerTurn} ms/turn`);
    const probe = perf.longChats?.probes.find((p) => p.trajectory === all.trajectory && p.hasher === 'native');
    targets.push({
      id: 'scaling:turn200/turn20',
      description: `build time of turns ${all.turns - 19}–${all.turns} ÷ turns 1–20 ≤ 1.3, medians and p95 (generated ${all.turns}-turn conversation)`,
      measured: `median ${all.ratio} (${all.last20.median} ms vs ${all.first20.median} ms), p95 ${all.ratioP95} (${all.last20.p95} vs ${all.first20.p95} ms)${processesNote(
        all,
        (x) => x.ratio,
        (x) => x.ratioP95,
      )}`,
      status: met ? 'met' : 'missed',
      ...(met
        ? {}
        : {
            note:
              scalingNote(
                all,
                probe,
                perf.longChats?.interleaved.find((x) => x.turns === all.turns && x.contextWindow === GENERATED_DEFAULTS.contextWindow),
              ) +
              ` Inclusive time per turn under buildTurn, turns 1–20 → last 20: ${culprits.join('; ')}. With every attached file passed before every turn (no watcher), the median ratio is ${allFresh.ratio}.`,
          }),
    });
  }
  for (const c of perf.longChats?.cases ?? []) {
    const r = c.result;
    if (r.turns < 1000 || r.hasher !== 'native' || r.fresh !== 'changed' || c.inProcess) continue;
    // The cut case compares turns doing the same kind of work: the turns that cut, and the turns
    // that send in full again what a cut took out (a window no cut reaches sends a reference
    // there), are the cut's work, reported apart because pruning turns have a target of their own.
    // All turns are shown beside.
    const w = r.sameWork;
    const met = w.ratio <= 1.5 && w.ratioP95 <= 1.5;
    const probe = perf.longChats?.probes.find((p) => p.trajectory === r.trajectory && p.hasher === 'native');
    const apart =
      r.resentTurns.length > 0
        ? `; all turns but the cuts: median ${r.ratio} (${r.last20.median} vs ${r.first20.median} ms), p95 ${r.ratioP95}, the windows then sending ${r.newBlocks.first20} / ${r.newBlocks.last20} new blocks`
        : '';
    targets.push({
      id: `scaling:turn${r.turns}/turn20${c.uncut ? ':uncut' : ''}`,
      description: c.uncut
        ? `the same in a window no cut reaches, as the ${GENERATED_DEFAULTS.turns}-turn case (${formatInt(LONG_CHAT_UNCUT.contextWindow)} tokens; nothing to report apart; the windows send ${w.blocks.first20} / ${w.blocks.last20} new blocks)`
        : `build time of turns ${r.turns - 19}–${r.turns} ÷ turns 1–20 ≤ 1.5, medians and p95 (generated ${r.turns}-turn conversation, ${formatInt(c.generated.fileBytes)} bytes of files; the cut's work reported apart: the turns that cut for the budget and the turns that send again in full a file a cut took out, unchanged since; the windows then send ${w.blocks.first20} / ${w.blocks.last20} new blocks)`,
      measured: `median ${w.ratio} (${w.last20.median} ms vs ${w.first20.median} ms), p95 ${w.ratioP95} (${w.last20.p95} vs ${w.first20.p95} ms)${processesNote(
        r,
        (x) => x.sameRatio,
        (x) => x.sameRatioP95,
      )}${apart}${
        r.resentTurns.length > 0
          ? processesNote(
              r,
              (x) => x.ratio,
              (x) => x.ratioP95,
            )
          : ''
      }`,
      status: met ? 'met' : 'missed',
      ...(met
        ? {}
        : {
            note: scalingNote(
              r,
              probe,
              perf.longChats?.interleaved.find(
                (x) =>
                  x.turns === r.turns && x.contextWindow === (c.uncut ? LONG_CHAT_UNCUT.contextWindow : GENERATED_DEFAULTS.contextWindow),
              ),
            ),
          }),
    });
  }
  for (const p of perf.longChats?.probes ?? []) {
    if (p.hasher !== 'native' || p.points.length < 2) continue;
    const [a, b] = [p.points[0], p.points[p.points.length - 1]];
    const limit = b.afterTurns >= 1000 ? 1.5 : 1.3;
    const rm = round(b.stats.median / a.stats.median);
    const met = rm <= limit;
    targets.push({
      id: `probe:${p.trajectory}`,
      description: `the same turn built after ${b.afterTurns} ÷ after ${a.afterTurns} turns ≤ ${limit} (median; generated ${p.trajectory.replace(/^generated-/, '').replace('-turns', '')}-turn conversation)`,
      measured: `${rm} (${b.stats.median} ms with ${formatInt(b.blocks)} blocks vs ${a.stats.median} ms with ${formatInt(a.blocks)})`,
      status: met ? 'met' : 'missed',
      ...(met
        ? {}
        : {
            note: "profiled at 1,000 turns, what is left grows with the request and the heap: the envelope's flat arrays (per-layer segments and ledger items, provider messages, block signatures) are new every request, with the garbage they make (of the same turn's growth from 20 to 1,000 turns, 9 of 11 µs, profiled over 20,000 builds each); lookups in memo tables of thousands of entries miss the cache.",
          }),
    });
  }
  if (perf.memory) {
    const m = perf.memory;
    const rssMet = m.replay.maxRssMB <= 250;
    targets.push({
      id: `memory:replay-rss-${m.replay.turns}`,
      description: `replay of the generated ${m.replay.turns}-turn conversation peaks at ≤ 250 MB RSS`,
      measured: `${m.replay.maxRssMB} MB (engine alone ${m.engineOnly.maxRssMB} MB)`,
      status: rssMet ? 'met' : 'missed',
    });
    const last = m.heap[m.heap.length - 1];
    if (last) {
      const met = last.ratio <= 2;
      targets.push({
        id: 'memory:engine-heap',
        description: 'engine heap ≤ 2× the distinct content',
        measured: `${last.ratio}× after ${last.turns} turns (${formatInt(last.engineHeapBytes)} bytes for ${formatInt(last.distinctContentBytes)})`,
        status: met ? 'met' : 'missed',
        ...(met
          ? {}
          : {
              note: "a version's content is a slice of its rendered block (held once); what is left is the per-segment and per-turn state (segments, ledger items, hashes, the carried request).",
            }),
      });
    }
  }
  if (perf.openChat) {
    const o = perf.openChat;
    const met = o.openChat.median <= 150;
    targets.push({
      id: 'open:1000-turn-chat',
      description: `opening a ${o.turns}-turn chat from disk (ChatStore.loadChat + ChatSession.openChat) ≤ 150 ms`,
      measured: `${fmtStats(o.openChat)}; first open in a new process ${o.cold.median} ms`,
      status: met ? 'met' : 'missed',
      ...(met ? {} : { note: `loadChat alone: median ${o.loadChat.median} ms` }),
    });
    // A chat this long is shown before its meter (METER_DEFERRED_TURNS): the panel's state is the
    // opened chat and its last 50 messages; the meter (its first build in this window, with the
    // chat's token counts saved beside it) follows as a message.
    const panel = o.sessionOpen.median;
    const withMeter = o.sessionOpen.median + o.firstMeterSaved.median;
    targets.push({
      id: 'open:1000-turn-chat-panel',
      description: `the panel's state for a ${o.turns}-turn chat in a new window (ChatSession.open, the last 50 messages; the meter follows) ≤ 150 ms`,
      measured: `${round(panel, 1)} ms; the meter follows at ${round(withMeter, 1)} ms (its first build ${o.firstMeterSaved.median} ms with the chat's saved token counts, ${o.firstMeter.median} ms without); after a change to the next request it takes ${o.meterAfterChange.median} ms`,
      status: panel <= 150 ? 'met' : 'missed',
      note: 'the chat needs pruning in this window (gpt-4o, 128K): every build of the meter prunes it from the committed state (superseded versions, compaction previews, summaries, a render per cut) until a turn is sent',
    });
  }
  return targets;
}
