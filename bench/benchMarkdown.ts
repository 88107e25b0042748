/** The benchmark's tables and notes as Markdown: latest.md and what `npm run bench` prints. */
import { DEFAULT_LAYOUT } from './replay';
import { markdownTable } from './charts';
import { formatInt, round, type Stats } from './perf/stats';
import type { ProcessRatios, InterleavedResult, ProbeResult, ScalingResult } from './perf/build';
import { GENERATED_DEFAULTS, LONG_CHAT, LONG_CHAT_UNCUT } from './perf/generate';
import type { SessionTurnsResult } from './perf/session';
import type { BenchResults, PerfResults, Target, ToolTrajectoryResult } from './benchResults';

export function fmtStats(s: Stats, unit = 'ms'): string {
  return `min ${s.min} / median ${s.median} / p95 ${s.p95} ${unit} (n = ${s.n})`;
}

/** The tool-heavy table: each strategy's cost and efficiency, and its cost ÷ the plain agent transcript's. */
export function toolMarkdown(results: ToolTrajectoryResult[]): string {
  if (results.length === 0) return '';
  const out: string[] = ['## Tool-heavy sessions', ''];
  out.push(
    'The model explores a repository with the workspace tools (scripted calls, one model request per step). `tools-plain` is a plain agent transcript: every tool result re-sent as plain text each time it is read, no dedup, never pruned, with the same cache breakpoints as `transcript`. Ratios are cost units ÷ those of `tools-plain`; requests counts every model call (the steps and the final one of each turn).',
    '',
  );
  for (const r of results) {
    const base = r.report.strategies.find((s) => s.name === 'tools-plain');
    out.push(`### ${r.name} — ${r.variant}`, '');
    out.push(
      `${r.turns} turns, ${r.toolCalls} tool calls, context window ${formatInt(r.contextWindow)} (budget ${formatInt(r.report.strategies[0]?.turns[0]?.budget ?? 0)}).`,
      '',
    );
    out.push(
      '| strategy | requests | prompt tokens | cached (OA) | cost units OA | efficiency OA | read/write (AN) | cost units AN | efficiency AN | cuts | over budget | cost OA vs tools-plain | cost AN vs tools-plain |',
    );
    out.push('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const s of r.report.strategies) {
      const x = s.totals;
      const requests = s.turns.reduce((n, t) => n + 1 + (t.steps?.length ?? 0), 0);
      const name = s.name === DEFAULT_LAYOUT ? `**${s.name}** (default)` : s.name;
      const ratio = (a: number, b: number | undefined) => (b && b > 0 ? `${(a / b).toFixed(3)}×` : '–');
      out.push(
        `| ${name} | ${requests} | ${formatInt(x.promptTokens)} | ${formatInt(x.cached.openai)} | ${s.costUnits.openai.toFixed(1)} | ${s.efficiency.openai.toFixed(3)} | ${formatInt(x.cached.anthropic.read)} / ${formatInt(x.cached.anthropic.write)} | ${s.costUnits.anthropic.toFixed(1)} | ${s.efficiency.anthropic.toFixed(3)} | ${x.pruned} | ${x.overBudgetTurns} | ${ratio(s.costUnits.openai, base?.costUnits.openai)} | ${ratio(s.costUnits.anthropic, base?.costUnits.anthropic)} |`,
      );
    }
    out.push(
      '',
      `Per tool step (replay, in-memory workspace, ${r.stepMs.tools.n} steps): tools ${fmtStats(r.stepMs.tools)}; appending their results to the request ${fmtStats(r.stepMs.append)}.`,
      '',
    );
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Targets

/** `(N processes: median a, b, c; p95 …)` when the case ran in several processes (the figure pools their samples). */
export function processesNote(r: ScalingResult, median: (p: ProcessRatios) => number, p95: (p: ProcessRatios) => number): string {
  const ps = r.processes;
  if (!ps || ps.length < 2) return '';
  return ` (${ps.length} processes: median ${ps.map(median).join(', ')}; p95 ${ps.map(p95).join(', ')})`;
}

/** Why a window ratio is above its target: the content the two windows add, and the probe. */
export function scalingNote(r: ScalingResult, probe: ProbeResult | undefined, inter?: InterleavedResult): string {
  const parts = [
    `${r.newContent.last20} of the last 20 turns send a new block (new files, versions, selections: content to hash and count) against ${r.newContent.first20} of turns 1–20, so the medians compare different work; the other turns (the history's work alone): ${r.noNewContent.last20.median} vs ${r.noNewContent.first20.median} ms median (${r.noNewContent.ratio}×); the new-content turns, beyond the other turns: ${r.perNewKB.last20.us} vs ${r.perNewKB.first20.us} µs per KB of new blocks (${r.perNewKB.ratio}×), for ${formatInt(r.perNewKB.last20.kb)} KB against ${formatInt(r.perNewKB.first20.kb)}.`,
  ];
  if (probe && probe.points.length >= 2) {
    const [a, b] = [probe.points[0], probe.points[probe.points.length - 1]];
    parts.push(
      `The same turn built after ${a.afterTurns} and after ${b.afterTurns} turns: ${a.stats.median} vs ${b.stats.median} ms (${round(b.stats.median / a.stats.median)}×).`,
    );
  }
  if (inter)
    parts.push(
      `Interleaved (${inter.runs} runs): median ${inter.ratio}×, p95 ${inter.ratioP95}×; the last 20 turns add ${inter.blocks.last20} blocks a turn against ${inter.blocks.first20}, and per block added the ratio is ${inter.perBlock.ratio}×.`,
    );
  if (r.cutTurns.length > 0)
    parts.push(`Turns that cut for the budget, left out of the windows: ${r.cutTurns.map((c) => `${c.turn} (${c.ms} ms)`).join(', ')}.`);
  if (r.resentTurns.length > 0)
    parts.push(
      `Turns that send again in full a file a cut took out: ${r.resentTurns.length} (last 20: ${r.resentTurns.filter((t) => t > r.turns - 20).join(', ') || 'none'}).`,
    );
  return parts.join(' ');
}

function table(header: string[], rows: (string | number)[][], align: ('l' | 'r')[]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${align.map((a) => (a === 'r' ? '--:' : '---')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n') + '\n';
}

export function performanceMarkdown(p: PerfResults): string {
  const out: string[] = ['## Performance', ''];
  if (p.buildLongSession) {
    const b = p.buildLongSession;
    out.push(`### Envelope build time per turn (\`buildTurn\` only, ${b.layout}, ${b.trajectory})`, '');
    out.push(
      table(
        ['pass', 'min ms', 'median ms', 'p95 ms', 'max ms', 'samples'],
        [
          ['cold (empty tokenizer memo)', b.cold.min, b.cold.median, b.cold.p95, b.cold.max, b.cold.n],
          [`warm (${b.warmRuns} passes)`, b.warm.min, b.warm.median, b.warm.p95, b.warm.max, b.warm.n],
        ],
        ['l', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
  }
  if (p.scaling) {
    const { generated: g, main: all, allFresh } = p.scaling;
    out.push(`### Scaling: generated ${all.turns}-turn conversation`, '');
    out.push(
      `${g.files} files, ${formatInt(g.fileBytes)} bytes (log-uniform 3–90 KB), ${g.edits} edits, ${g.selections} selections, ${g.reattachments} re-attachments; context window ${formatInt(GENERATED_DEFAULTS.contextWindow)} (nothing pruned). Warm passes: ${all.warmRuns}.`,
      '',
    );
    const row = (name: string, s: ScalingResult) => [
      name,
      s.first20.median,
      s.first20.p95,
      s.last20.median,
      s.last20.p95,
      s.ratio,
      s.ratioP95,
    ];
    out.push(
      table(
        [
          'fresh files passed',
          'turns 1–20 median ms',
          'p95',
          `turns ${all.turns - 19}–${all.turns} median ms`,
          'p95',
          'ratio (median)',
          'ratio (p95)',
        ],
        [
          row('changed only (as the replay and the extension: a file watcher)', all),
          row('every attached file, every turn (no watcher; diagnostic)', allFresh),
        ],
        ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    if (p.scaling.growth.length > 0) {
      out.push('What grows (inclusive ms per turn under `buildTurn`, from the V8 sampling profiler):', '');
      out.push(
        table(
          ['function', 'turns 1–20', `turns ${all.turns - 19}–${all.turns}`, 'growth'],
          p.scaling.growth.map((g) => [`\`${g.fn}\``, g.earlyMsPerTurn, g.lateMsPerTurn, g.growthMsPerTurn]),
          ['l', 'r', 'r', 'r'],
        ),
      );
    }
  }
  if (p.longChats && p.scaling) {
    const { main: all } = p.scaling;
    out.push('### Long chats', '');
    out.push(
      "Same measurement, side by side: Node's native sha256 given through the engine's IHasher port (as the extension, the replay and the benchmark run) and the engine's own pure-JS sha256 (its default when no port is given); " +
        `and a ${formatInt(LONG_CHAT.turns)}-turn conversation with ${formatInt(LONG_CHAT.fileBytes)} bytes of files in the same window, which cuts a few times near the end (those turns are listed apart, not in the windows; files cut then are sent again in full when attached later, where a window no cut reaches sends a reference, so its last 20 turns send more new blocks than its first 20: those turns are the cut's deferred work and the last column compares the windows without them, the target of this case), ` +
        `and in a ${formatInt(LONG_CHAT_UNCUT.contextWindow)}-token window, which nothing cuts (as the ${GENERATED_DEFAULTS.turns}-turn case). ` +
        '"New-content turns": turns of the window that send a block for the first time (a new file, version or selection: content to hash and count); "other turns": the rest, whose work is the history\'s alone; "beyond the others": what the new-content turns take over the other turns\' median, per KB of the new blocks (the cost of new content, apart from how much of it each window has). ' +
        "Each case runs in a child process of its own (the chat and nothing else in its heap; the figures do not depend on the order the cases run in); the cases with a target run in three, their samples pooled (medians, p95 and ratios over all three; the other columns from the process with the median ratio), every process's ratio in brackets; the last row runs in the benchmark's own process, for comparison.",
      '',
    );
    const spread = (r: ScalingResult, f: (p: ProcessRatios) => number, own: number) =>
      r.processes && r.processes.length > 1 ? `${own} (${r.processes.map(f).join(', ')})` : `${own}`;
    const row = (label: string, r: ScalingResult) => [
      label,
      r.hasher,
      r.first20.median,
      r.first20.p95,
      `${r.last20.median}`,
      r.last20.p95,
      spread(r, (x) => x.ratio, r.ratio),
      spread(r, (x) => x.ratioP95, r.ratioP95),
      `${r.newContent.first20} / ${r.newContent.last20} (${r.newBlocks.first20} / ${r.newBlocks.last20} blocks)`,
      `${r.noNewContent.first20.median} / ${r.noNewContent.last20.median} (${r.noNewContent.ratio}×)`,
      `${r.perNewKB.first20.us} / ${r.perNewKB.last20.us} µs per KB of ${formatInt(r.perNewKB.first20.kb)} / ${formatInt(r.perNewKB.last20.kb)} KB (${r.perNewKB.ratio}×)`,
      r.cutTurns.length ? r.cutTurns.map((c) => `${c.turn} (${c.ms} ms)`).join(', ') : '—',
      r.resentTurns.length
        ? `${r.resentTurns.length} (${r.resentTurns.filter((t) => t > r.turns - 20).length} in the last 20): ${spread(r, (x) => x.sameRatio, r.sameWork.ratio)} / ${spread(r, (x) => x.sameRatioP95, r.sameWork.ratioP95)}`
        : '—',
    ];
    out.push(
      table(
        [
          'case',
          'sha256',
          'turns 1–20 median ms',
          'p95',
          'last 20 median ms',
          'p95',
          'ratio (median)',
          'ratio (p95)',
          'new-content turns (first / last 20)',
          'other turns: median ms first / last 20 (ratio)',
          'new-content turns beyond the others, first / last 20 (ratio)',
          'turns that cut (median ms)',
          'turns re-sending what a cut took out; ratio without them (median / p95)',
        ],
        [row(`${all.turns} turns`, all), ...p.longChats.cases.map((c) => row(c.label, c.result))],
        ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
      ),
    );
    out.push(
      'The same turn built at different lengths of one chat (build, then abandon, as the context meter does while the user types): one new 12 KB file, the first two files attached again, the same message. ' +
        `Only the history differs. A chat is driven to each point and their builds alternate, so that what drifts on the machine falls on every point alike; ${p.longChats.probes[0]?.runs ?? 0} builds per point. ` +
        `The ${formatInt(LONG_CHAT.turns)}-turn chat is the one in the window no cut reaches: in the other, the two files the probe attaches again were cut by then, and it would send them in full late and not early.`,
      '',
    );
    const probeRows = p.longChats.probes.map((pr) => {
      const a = pr.points[0];
      const b = pr.points[pr.points.length - 1];
      return [
        pr.trajectory.replace(/^generated-/, ''),
        pr.hasher,
        pr.points
          .map((pt) => `after ${formatInt(pt.afterTurns)}: ${pt.stats.median} / ${pt.stats.p95} ms (${formatInt(pt.blocks)} blocks)`)
          .join('; '),
        round(b.stats.median / a.stats.median),
        round(b.stats.p95 / a.stats.p95),
      ];
    });
    out.push(
      table(['chat', 'sha256', 'median / p95 per point', 'last ÷ first (median)', 'last ÷ first (p95)'], probeRows, [
        'l',
        'l',
        'l',
        'r',
        'r',
      ]),
    );
    if (p.longChats.interleaved.length > 0) {
      out.push(
        'The scaling cases again with the windows interleaved: per run, one chat is driven to its last 20 turns, then turn k of a new chat and turn n−20+k of the long one alternate, each timed, so that what drifts on the machine during a run falls on both windows alike. ' +
          "The windows also differ in work: the last column divides each turn's time by the blocks it adds (its message's blocks and the reply).",
        '',
      );
      out.push(
        table(
          [
            'chat',
            'runs',
            'turns 1–20 median / p95 ms',
            'last 20 median / p95 ms',
            'ratio (median)',
            'ratio (p95)',
            'blocks per turn (first / last 20)',
            'ms per block, median (first / last 20)',
            'ratio per block',
          ],
          p.longChats.interleaved.map((r) => [
            `${r.turns} turns${r.contextWindow === LONG_CHAT_UNCUT.contextWindow ? `, ${formatInt(r.contextWindow)}-token window (nothing cut)` : ''}`,
            r.runs,
            `${r.first20.median} / ${r.first20.p95}`,
            `${r.last20.median} / ${r.last20.p95}`,
            r.ratio,
            r.ratioP95,
            `${r.blocks.first20} / ${r.blocks.last20}`,
            `${r.perBlock.first20.median} / ${r.perBlock.last20.median}`,
            r.perBlock.ratio,
          ]),
          ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
        ),
      );
    }
  }
  if (p.tokenizer) {
    const t = p.tokenizer;
    out.push('### Token counting throughput (MB/s of UTF-8)', '');
    out.push(
      `Corpus: the distinct file contents of the trajectories, ${t.corpus.texts} texts, ${formatInt(t.corpus.bytes)} bytes, ${formatInt(t.tokens)} tokens (o200k_base); ${t.corpus.excludedRuns} runs over 2,000 characters without whitespace left out (${formatInt(t.corpus.excludedChars)} chars; js-tiktoken is quadratic there). Same totals from both: ${t.tokensAgree ? 'yes' : 'NO'}. ${t.runs} runs.`,
      '',
    );
    const r = (name: string, s: Stats) => [name, s.min, s.median, s.p95];
    out.push(
      table(
        ['tokenizer / pass', 'min', 'median', 'p95'],
        [
          r('gpt-tokenizer (ours, `count`) cold', t.gptTokenizer.cold),
          r('gpt-tokenizer (ours, `count`) warm (memo)', t.gptTokenizer.warm),
          r('gpt-tokenizer (ours, `encode`) warm, no memo', t.gptTokenizer.encodeWarm),
          r('js-tiktoken cold', t.jsTiktoken.cold),
          r('js-tiktoken warm', t.jsTiktoken.warm),
        ],
        ['l', 'r', 'r', 'r'],
      ),
    );
    out.push(`js-tiktoken: \`new Tiktoken(ranks)\` takes ${t.jsTiktoken.constructMs} ms (median), not counted above.`, '');
  }
  if (p.memory) {
    const m = p.memory;
    out.push('### Memory (generated conversation, child processes)', '');
    out.push(
      table(
        ['case', 'turns', 'peak RSS MB', 'time ms', 'prompt tokens, last turn'],
        [
          [
            'replay (engine + invariant checks + both cache simulations)',
            m.replay.turns,
            m.replay.maxRssMB,
            m.replay.replayMs,
            formatInt(m.replay.promptTokensLastTurn),
          ],
          ['engine alone', m.engineOnly.turns, m.engineOnly.maxRssMB, m.engineOnly.replayMs, formatInt(m.engineOnly.promptTokensLastTurn)],
        ],
        ['l', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push(
      `The cache simulation keeps one radix tree of the requests' tokens per rule; an edge holds its own compact copy (Int32Array) of the tokens it adds, so a chat whose requests extend each other keeps about one request's tokens, not all ${m.replay.turns} (up to ${formatInt(m.replay.promptTokensLastTurn)} tokens each).`,
      '',
    );
    out.push(
      table(
        [
          'turns',
          'engine heap bytes',
          'of which derived-block and hash memos',
          'distinct content bytes',
          'artifact versions',
          'heap ÷ content',
        ],
        m.heap.map((h) => [
          h.turns,
          formatInt(h.engineHeapBytes),
          formatInt(h.blockMemoBytes),
          formatInt(h.distinctContentBytes),
          h.artifactVersions,
          h.ratio,
        ]),
        ['r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
    out.push(
      "Engine heap = heap kept after all turns with only the engine alive (tokenizer memo cleared) minus the heap before; distinct content = every artifact version's content once plus the messages, replies and system prompt. " +
        "Each artifact version's text is held once: its content is a slice of its rendered full block (V8 keeps a substring of a flat string as a reference into it); the rest is the per-segment and per-turn state (segments, ledger items, hashes, the carried request).",
      '',
    );
  }
  if (p.promptTsx) {
    const c = p.promptTsx;
    out.push(`### Pruning side by side with @vscode/prompt-tsx (${c.trajectory}, last turn)`, '');
    out.push(
      `The same chunks and priorities: ${formatInt(c.totalTokens)} tokens unpruned, ${formatInt(c.essentialTokens)} essential. Time: median of ${c.runs} runs (prompt-tsx: \`render()\`, which counts tokens itself; optimizeForLimit: the call alone, token counts given; engine: \`buildTurn\`, rendering and counting included). ` +
        'Dangling refs: references to a block the request no longer carries (the chunk-level pruners cannot know; the engine replaces them).',
      '',
    );
    out.push(
      table(
        [
          'budget',
          'method',
          'tokens used',
          'used ÷ budget',
          'fits',
          'artifacts full / compacted (of)',
          'history turns verbatim / summarized (of)',
          'dangling refs',
          'ms',
        ],
        c.rows.map((r) => [
          formatInt(r.budget),
          r.method,
          formatInt(r.usedTokens),
          r.usedRatio.toFixed(3),
          r.fits ? 'yes' : 'NO',
          `${r.artifactsFull} / ${r.artifactsCompacted} (${r.artifactsTotal})`,
          `${r.historyVerbatim} / ${r.historySummarized} (${r.historyTotal})`,
          r.danglingRefs,
          r.ms,
        ]),
        ['r', 'l', 'r', 'r', 'l', 'r', 'r', 'r', 'r'],
      ),
    );
  }
  if (p.openChat) {
    const o = p.openChat;
    out.push(`### Opening a ${o.turns}-turn chat from disk`, '');
    out.push(
      `The generated conversation (${formatInt(o.generated.fileBytes)} bytes of distinct files, ${o.generated.edits} edits, ${o.generated.selections} selections) saved by the chat store, one line per turn (${o.writer === 'synthetic' ? 'states built directly' : 'through the turn pipeline'}, ${formatInt(o.writeMs)} ms): chat file ${formatInt(o.chatFileBytes)} bytes, ${o.blobs} blobs, ${formatInt(o.blobBytes)} bytes. ${o.runs} runs; every snapshot is read and verified.`,
      '',
    );
    const r = (name: string, s: Stats) => [name, s.min, s.median, s.p95];
    out.push(
      table(
        ['', 'min ms', 'median ms', 'p95 ms'],
        [
          r('`ChatStore.open` + `loadChat`', o.loadChat),
          r('`ChatSession.openChat` + the last 50 messages', o.openChat),
          r('a new window: `ChatSession.open` + the last 50 messages', o.sessionOpen),
          r('first open in a new process (cold)', o.cold),
          r('the first meter in a new window, no counts saved (every past text counted)', o.firstMeter),
          r('the first meter in a new window, counts saved beside the chat', o.firstMeterSaved),
        ],
        ['l', 'r', 'r', 'r'],
      ),
    );
  }
  if (p.sessionTurns) {
    const st = p.sessionTurns;
    out.push(`### Sending a ${st.turns}-turn chat through the session`, '');
    out.push(
      `The generated ${st.turns}-turn conversation (${formatInt(st.generated.fileBytes)} bytes of files) sent turn by turn as the extension does: chips attached, \`ChatSession.send\` with a scripted provider ` +
        "(build, reply, commit, save to the chat store), then the meter and the last 50 messages (the panel's refresh). The workspace reports only changed files, as the host's watcher and stat cache do; " +
        `the store writes without fsync, so these are CPU figures. Chat file after the last turn: ${formatInt(st.chatFileBytes)} bytes. One run, ${formatInt(st.totalMs)} ms.`,
      '',
    );
    const w = (name: string, k: keyof SessionTurnsResult['first20']) => [
      name,
      st.first20[k].median,
      st.first20[k].p95,
      st.last20[k].median,
      st.last20[k].p95,
      `${st.ratio[k]}×`,
    ];
    out.push(
      table(
        ['per turn', 'turns 1–20 median ms', 'p95', `turns ${st.turns - 19}–${st.turns} median ms`, 'p95', 'ratio (median)'],
        [
          w('`send` (to the saved turn)', 'send'),
          w('  of which the save (`ChatStore.appendTurn`)', 'save'),
          w('  of which the build (`buildTurn`)', 'build'),
          w('meter + last 50 messages', 'refresh'),
          w('Context Layers tree (its nodes; the newest 200 requests sent kept, as the host does)', 'tree'),
        ],
        ['l', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
  }
  return out.join('\n');
}

export function targetsMarkdown(targets: Target[]): string {
  const rows = targets.map((t) => [t.status === 'missed' ? '**missed**' : t.status, t.description, t.measured]);
  const out = ['## Targets', '', table(['', 'target', 'measured'], rows, ['l', 'l', 'l'])];
  for (const t of targets.filter((x) => x.status === 'missed' && x.note)) out.push(`- **${t.id}**: ${t.note}`);
  return out.join('\n') + '\n';
}

export function resultsMarkdown(r: BenchResults): string {
  const m = r.machine;
  const parts = [
    '# Strata benchmark',
    '',
    `Generated ${r.generatedAt} by \`npm run bench\`${r.settings.quick ? ' (--quick)' : ''} on ${m.cpuModel} (${m.cpus} cores), Node ${m.node}, ${m.platform}/${m.arch}. Default layout: \`${r.settings.defaultLayout}\`.`,
    '',
    '## Cache economics',
    '',
    ...r.economics.map((t) => markdownTable(t.report, r.settings.defaultLayout) + `\n![${t.name}](${t.name}.svg)\n`),
    toolMarkdown(r.tools),
    performanceMarkdown(r.performance),
    targetsMarkdown(r.targets),
  ];
  return parts.join('\n');
}
