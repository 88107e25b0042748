import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { StrataApi } from '../../../src/extension';
import { runSteps } from '../../../src/common/steps';
import { ChatSession } from '../../../src/services/chatSession';
import { modelInfo } from '../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../src/services/providers/scripted';
import { getTokenizer } from '../../../src/services/tokenizer';
import { ToolExecutor } from '../../../src/services/tools/executor';
import { folderUri, PanelDriver, strataApi, until, withTimeout } from '../support/panel';
import { ThreadClock } from '../support/threadClock';

/**
 * Hostile input must not freeze the extension host: the longest event-loop stall of the host while
 * it attaches a 5 MB file, searches 2,000 files with a tool, lists them with a glob built to make a
 * backtracking matcher explode, opens a 1,000-turn chat with a model of a 16K window, and imports a
 * large export. The figures are printed as a table; the target is 50 ms each.
 *
 * The probe is a 5 ms interval timer in this process (the extension host runs the tests): the
 * longest gap between two of its ticks, less the 5 ms it asked for, is the longest time the host
 * could not answer anything — the editor's requests, the panel, a Stop. On a machine shared by more
 * busy processes than it has cores, the operating system also keeps the process waiting for a core,
 * for tens of milliseconds at a time, whatever it runs; so each gap is also measured less the time
 * the host's main thread spent runnable but waiting for a core, and less the time it spent blocked
 * while the process's other threads were runnable but waiting for one, up to the time it was blocked:
 * what the main thread waits on there (the garbage collector's parallel work on V8's helper threads,
 * a lock a file-system worker holds) is work the machine had no core for (Linux's per-thread
 * scheduler statistics). What is left is the time the host itself held the event loop: running, or
 * blocked in a system call. On a machine shared with other builds even that moves with the load (a
 * blocked system call waits for a disk and memory others use), so the figure checked against the
 * target is the longest time the main thread ran on a core between two ticks: the work the host
 * itself did in one piece, which another process cannot lengthen much. Printed beside it are the
 * hold, the time the main thread ran in it, and the wall-clock gap; on an idle machine the three are
 * about the same (where the statistics are missing, the hold, then the wall clock, is checked). Every operation runs three times,
 * on inputs as cold as the first. The target, 50 ms, is printed beside each figure ("over" when a run
 * misses it; docs/performance.md keeps the figures); what fails the test is a freeze: a run over
 * 150 ms (one run over it is repeated once, see `measure`). That is at least twice every quiet figure
 * measured here, so a busy machine does not fail the suite, while the hostile inputs this file exists
 * for (seconds of backtracking, a whole 5 MB file in one piece) still do.
 */

const TARGET_MS = 50;
/** A hold the user feels as a frozen editor: over it the test fails. */
const FREEZE_MS = 150;
const TICK_MS = 5;
/** Runs of each operation, each on an input as cold as the first. */
const RUNS = 3;

interface Stall {
  /** The longest gap between two ticks, less the tick, ms. */
  wall: number;
  /** The longest gap less the time the main thread waited for a core in it, ms. */
  held: number;
  /** Between the two ticks of the longest hold: the time the main thread ran on a core, ms. */
  ran: number;
  /** Of the longest hold: the garbage collector's pauses that began in it, ms. */
  gc: number;
  /** The longest time the main thread ran on a core between two ticks, ms: the figure checked. */
  core: number;
}

async function longestStall(work: () => Promise<void>, tailMs = 300): Promise<Stall> {
  const clock = new ThreadClock();
  let last = performance.now();
  let then = clock.now();
  const worst: Stall = { wall: 0, held: 0, ran: 0, gc: 0, core: 0 };
  let span = [0, 0];
  const pauses: { start: number; ms: number }[] = [];
  const collector = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, ms: e.duration });
  });
  collector.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const now = performance.now();
    const t = clock.now();
    const gap = now - last - TICK_MS;
    const waited = t.waited - then.waited;
    const blocked = Math.max(0, gap - waited - (t.ran - then.ran));
    worst.wall = Math.max(worst.wall, gap);
    worst.core = Math.max(worst.core, t.ran - then.ran);
    const held = gap - waited - Math.min(blocked, t.othersWaited - then.othersWaited);
    if (held > worst.held) {
      worst.held = held;
      worst.ran = t.ran - then.ran;
      span = [last, now];
    }
    last = now;
    then = t;
  }, TICK_MS);
  try {
    await work();
    // Work the operation leaves behind (a meter counted afterwards, a panel refresh) counts too.
    await new Promise((r) => setTimeout(r, tailMs));
  } finally {
    clearInterval(timer);
    clock.close();
    // The collector's entries arrive after the pause: one more turn lets the last ones in.
    await new Promise((r) => setImmediate(r));
    collector.disconnect();
  }
  const gc = pauses.filter((p) => p.start >= span[0] && p.start < span[1]).reduce((sum, p) => sum + p.ms, 0);
  return { wall: Math.max(0, worst.wall), held: Math.max(0, worst.held), ran: worst.ran, gc, core: worst.core };
}

/** A run as printed: on a core / held / of it on a core / in the garbage collector / wall clock, ms. */
function row(r: Stall): string {
  return [r.core, r.held, r.ran, r.gc, r.wall].map((ms) => ms.toFixed(1)).join(' / ');
}

/** The figure checked against the target: on-core time where the system keeps it, else the hold. */
function judged(r: Stall): number {
  return r.core > 0 ? r.core : r.held;
}

/** A line of plausible code, different on every line. */
function codeLine(i: number): string {
  return `export const value${i} = computeSomething(${i}, "text ${i % 97}", [${i % 13}, ${i % 7}]); // line ${i}`;
}

/**
 * Writes a 1,000-turn chat through a session of its own and returns its id. The session is dropped
 * when this returns, as another window's would be: the host's heap then holds one copy of the chat,
 * the one under test, as it does for a person who opens it.
 */
async function writeLongChat(api: StrataApi): Promise<string> {
  const writer = ChatSession.open(
    {
      storeRoot: api.testing.session.store.root,
      port: api.testing.workspace,
      tokenizer: getTokenizer,
      settings: () => ({ layout: 'transcript', policy: 'append-version' }),
      store: { durable: false },
    },
    'stall-1000-turns',
  );
  writer.setModel(modelInfo('scripted', 'gpt-4o'));
  const provider = new ScriptedProvider();
  for (let t = 1; t <= 1000; t++) {
    provider.push(`${t}. The answer is ${codeLine(t)}; see also ${codeLine(t + 1)}.`);
    const outcome = await writer.send(`Question ${t}: what does value${t} hold?`, provider);
    assert.equal(outcome.status, 'done');
  }
  return writer.activeChatId;
}

describe('Hostile input does not freeze the extension host', function () {
  this.timeout(900_000);
  let api: StrataApi;
  let panel: PanelDriver;
  const made: string[] = [];
  const chats: string[] = [];
  const figures: { what: string; held: number; runs: Stall[]; repeat?: Stall }[] = [];

  /**
   * Runs `run(0)`, `run(1)` and `run(2)`; records them and checks that none freezes the host. A
   * single run over the freeze limit is measured once more, on the spare input `run(3)`: a hold the
   * extension causes comes back on every run, while one the machine causes (another process taking
   * the cores at that moment) does not. Two runs over the limit, or a repeat over it, fail.
   */
  async function measure(what: string, run: (attempt: number) => Promise<void>, tailMs?: number): Promise<void> {
    const runs: Stall[] = [];
    for (let k = 0; k < RUNS; k++) runs.push(await longestStall(() => run(k), tailMs));
    const over = runs.filter((r) => judged(r) > FREEZE_MS);
    const repeat = over.length === 1 ? await longestStall(() => run(RUNS), tailMs) : undefined;
    const counted = repeat ? [...runs.filter((r) => judged(r) <= FREEZE_MS), repeat] : runs;
    const held = Math.max(...counted.map(judged));
    figures.push({ what, held, runs, repeat });
    const shown = [...runs, ...(repeat ? [repeat] : [])]
      .map(
        (r) =>
          `${r.core.toFixed(1)} on a core (held ${r.held.toFixed(1)}, ran ${r.ran.toFixed(1)}, gc ${r.gc.toFixed(1)}, wall ${r.wall.toFixed(1)})`,
      )
      .join(', ');
    assert.ok(held <= FREEZE_MS, `${what}: the host's main thread ran ${shown} ms between two ticks, a run over ${FREEZE_MS} ms`);
  }

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    // The tools below run from this test's own copy of the modules: its tokenizer loads its encoding
    // here, as the extension's does before its first count.
    getTokenizer('o200k_base').count('warm');
    const dir = path.join(folderUri('app').fsPath, 'stall');
    fs.mkdirSync(dir, { recursive: true });
    made.push(dir);
    for (let i = 0; i < 2000; i++) {
      const lines = Array.from({ length: 40 }, (_, j) => codeLine(i * 40 + j));
      if (i % 100 === 0) lines.push('// the needle is here');
      fs.writeFileSync(path.join(dir, `module${String(i).padStart(4, '0')}.ts`), lines.join('\n') + '\n');
    }
    // A different file for each run and the spare: a second attach of the same text would find its
    // token counts known.
    for (let k = 0; k <= RUNS; k++) {
      let big = '';
      for (let i = 0; big.length < 5 * 1024 * 1024; i++) big += `${codeLine(i)} // copy ${k}\n`;
      fs.writeFileSync(path.join(dir, `big${k}.ts.txt`), big);
    }
  });

  after(async () => {
    console.log(
      `      longest extension-host stall (target ≤ ${TARGET_MS} ms on a core; runs: on a core / held / of it on a core / of it in the garbage collector / wall clock):`,
    );
    console.log('      | operation | longest stall | runs |');
    console.log('      |---|--:|---|');
    for (const f of figures)
      console.log(
        `      | ${f.what} | ${f.held.toFixed(1)} ms${f.held <= TARGET_MS ? '' : ' (over)'} | ${f.runs.map(row).join(', ')}${f.repeat ? `; repeated: ${row(f.repeat)}` : ''} |`,
      );
    panel?.dispose();
    await api.testing.controller.newChat();
    for (const id of chats) {
      try {
        api.testing.session.deleteChat(id);
      } catch {
        // already gone
      }
    }
    await api.testing.controller.refreshProvider();
    for (const p of made) fs.rmSync(p, { recursive: true, force: true });
  });

  it('attach of a 5 MB file', async () => {
    await api.testing.controller.newChat();
    await measure(
      'attach of a 5 MB file',
      async (k) => {
        const chip = await api.testing.session.attach({ kind: 'file', path: `app/stall/big${k}.ts.txt` });
        api.testing.controller.refreshMeter();
        assert.ok(chip.ok, JSON.stringify(chip));
        if (chip.ok) api.testing.session.removeChip(chip.chip.id);
      },
      2000,
    );
  });

  it('a tool search over 2,000 files', async () => {
    const tools = new ToolExecutor(api.testing.workspace, getTokenizer('o200k_base'));
    await measure('search_text over 2,000 files', async (k) => {
      const r = await runSteps(tools.execute({ id: `s${k}`, name: 'search_text', args: { query: 'the needle', glob: 'app/stall/*.ts' } }));
      const found = r.output.kind === 'artifact' ? r.output.input.content : r.output.text;
      assert.equal(found.split('\n').length, 20, found.slice(0, 500));
    });
  });

  it('the hostile glob over 2,000 files', async () => {
    const tools = new ToolExecutor(api.testing.workspace, getTokenizer('o200k_base'));
    await measure('list_files **/*?*?*?*?*?*?*?*?*?[s] (2,000 files)', async (k) => {
      const r = await runSteps(tools.execute({ id: `g${k}`, name: 'list_files', args: { glob: '**/*?*?*?*?*?*?*?*?*?[s]' } }));
      const listed = r.output.kind === 'artifact' ? r.output.input.content : r.output.text;
      assert.ok(listed.includes('app/stall/module0000.ts'), listed.slice(0, 300));
    });
  });

  let longChat = '';

  it('opening a 1,000-turn chat with a 16K-window model', async () => {
    const started = performance.now();
    longChat = await writeLongChat(api);
    chats.push(longChat);
    console.log(`      wrote a 1,000-turn chat in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // Copies of the chat, each opened as if for the first time in this window.
    const chatsDir = path.join(api.testing.session.store.root, 'chats');
    const copies = [longChat, `${longChat}-copy1`, `${longChat}-copy2`, `${longChat}-copy3`];
    for (const id of copies.slice(1)) {
      fs.copyFileSync(path.join(chatsDir, `${longChat}.jsonl`), path.join(chatsDir, `${id}.jsonl`));
      made.push(path.join(chatsDir, `${id}.jsonl`));
    }

    await api.testing.controller.provider();
    api.testing.session.setModel(modelInfo('scripted', 'small-window', { contextWindow: 16_000, maxOutputTokens: 1024 }));
    await measure('opening a 1,000-turn chat, 16K-window model', async (k) => {
      await api.testing.controller.newChat();
      panel.clear();
      await api.testing.controller.switchChat(copies[k]);
      await until('the meter of the long chat', () => panel.of('meter').length > 0, 120_000);
      assert.equal(api.testing.session.activeChatId, copies[k]);
    });
  });

  it('importing a large export', async () => {
    assert.ok(longChat, 'the 1,000-turn chat was written');
    await api.testing.controller.refreshProvider();
    const md = api.testing.session.store.exportMarkdown(longChat);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'strata-stall-')), 'long.md');
    fs.writeFileSync(file, md);
    made.push(path.dirname(file));
    console.log(`      the export is ${(md.length / 1024 / 1024).toFixed(1)} MB`);
    await measure('importing a 1,000-turn export', async () => {
      await api.testing.controller.newChat();
      panel.clear();
      // A command run with a file still asks (commandConsent.ts): the suite says yes, and counts the questions.
      const consented: string[] = [];
      api.testing.consent.ask = async (q) => (consented.push(`${q.action} ${q.target}`), true);
      await vscode.commands.executeCommand('strata.importChat', vscode.Uri.file(file));
      await until('the imported chat in the panel', () => panel.of('state').length > 0, 120_000);
      chats.push(api.testing.session.activeChatId);
      assert.notEqual(api.testing.session.activeChatId, longChat);
    });
  });
});
