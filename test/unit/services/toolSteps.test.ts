/**
 * Tool steps in the engine and the turn pipeline, driven synchronously with the scripted
 * provider over an in-memory workspace: every request of a tool turn is a pure append of the one
 * before; what a tool read follows the once-per-version rules (references for what the request
 * carries, new versions for changed files); refusals carry no content; the next turn extends the
 * last request; a reloaded chat renders the same next request; the step limit and the turn's token
 * ceiling; tool results are cut before anything the user attached; recovery hints name read_file.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine, type EngineOptions } from '../../../src/engine/engine';
import { checkEnvelope } from '../../../src/engine/invariants';
import { extractBody } from '../../../src/engine/render';
import { decodeState, encodeState, stateBlobs } from '../../../src/engine/stateCodec';
import type { ChatMessage } from '../../../src/engine/types';
import { sha256Hex } from '../../../src/common/hash';
import { MemoryWorkspace } from '../../../src/services/memoryWorkspace';
import { ScriptedProvider, type ScriptedReply } from '../../../src/services/providers/scripted';
import type { ChatRequest } from '../../../src/services/providers/types';
import { GuardedTokenizer } from '../../../src/services/tokenizer';
import { TOOL_DEFINITIONS } from '../../../src/services/tools/definitions';
import { DEFAULT_TOOL_LIMITS, ToolExecutor } from '../../../src/services/tools/executor';
import { TurnPipeline, type SendOptions, type TurnEvent, type TurnOutcome } from '../../../src/services/turnPipeline';
import { STEP_TEXT_SEPARATOR } from '../../../src/services/turn/toolLoopState';
import type { TurnRequest } from '../../../src/services/turn/turnRequest';

const tokenizer = new GuardedTokenizer('o200k_base');
const SECRET = 'OPENAI_API_KEY=sk-live-TOOLSTEPS-0123456789';
const A_TS = Array.from({ length: 80 }, (_, i) => `export const a${i} = ${i}; // line ${i + 1} of a.ts`).join('\n') + '\n';
const B_TS = 'import { a0 } from "./a";\nexport const b = a0 + 1;\n';

function files(): Record<string, string> {
  return { 'src/a.ts': A_TS, 'src/b.ts': B_TS, 'README.md': '# demo\nSee src/a.ts.\n', '.env': SECRET };
}

function engine(opts: Partial<EngineOptions> = {}): PromptContextEngine {
  return new PromptContextEngine({
    conversationId: 'tool-steps',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer,
    system: 'You are a coding assistant with workspace tools.',
    limits: { contextWindow: 128_000, maxOutputTokens: 1024 },
    tools: true,
    ...opts,
  });
}

interface Rig {
  ws: MemoryWorkspace;
  pipeline: TurnPipeline;
  provider: ScriptedProvider;
  requests: ChatRequest[];
  events: TurnEvent[];
}

function rig(opts: { engine?: Partial<EngineOptions>; files?: Record<string, string> } = {}): Rig {
  const ws = new MemoryWorkspace(opts.files ?? files());
  const requests: ChatRequest[] = [];
  const provider = new ScriptedProvider(undefined, { onRequest: (r) => requests.push(r) });
  const pipeline = new TurnPipeline({ engine: engine(opts.engine), port: ws, check: true });
  return { ws, pipeline, provider, requests, events: [] };
}

let callSeq = 0;
function calls(...list: [string, Record<string, unknown>][]): ScriptedReply {
  return { text: '', toolCalls: list.map(([name, args]) => ({ id: `call_${++callSeq}`, name, args })) };
}

function sendOpts(r: Rig, over: Partial<SendOptions> = {}, loop: { maxSteps?: number; maxTurnTokens?: number } = {}): SendOptions {
  return {
    model: 'scripted',
    maxOutputTokens: 256,
    onEvent: (e) => r.events.push(e),
    tools: {
      definitions: TOOL_DEFINITIONS,
      executor: new ToolExecutor(r.ws, tokenizer, DEFAULT_TOOL_LIMITS),
      maxSteps: loop.maxSteps ?? 8,
      maxTurnTokens: loop.maxTurnTokens ?? 60_000,
    },
    ...over,
  };
}

function turn(
  r: Rig,
  req: TurnRequest | string,
  replies: (string | ScriptedReply)[],
  over: Partial<SendOptions> = {},
  loop: { maxSteps?: number; maxTurnTokens?: number } = {},
): TurnOutcome {
  r.provider.push(...replies);
  const outcome = r.pipeline.runSync(typeof req === 'string' ? { userText: req } : req, r.provider, sendOpts(r, over, loop));
  assert.deepEqual(outcome.violations, [], `invariant violations: ${JSON.stringify(outcome.violations)}`);
  return outcome;
}

/** A message without its cache breakpoint flags (they move from request to request; the bytes do not). */
function plain(m: ChatMessage): unknown {
  return { role: m.role, texts: m.content.map((b) => b.text), toolCalls: m.toolCalls, toolCallId: m.toolCallId };
}

function assertAppend(prev: readonly ChatMessage[], next: readonly ChatMessage[], what: string): void {
  assert.ok(next.length > prev.length, `${what}: the request grew`);
  assert.deepEqual(next.slice(0, prev.length).map(plain), prev.map(plain), `${what}: a pure append of the previous request`);
}

function textOf(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content.map((b) => b.text).join('') + (m.toolCalls ? JSON.stringify(m.toolCalls) : '')).join('\n');
}

function count(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

describe('tool steps: engine and pipeline (scripted provider, in-memory workspace)', () => {
  it('a tool turn: each model request is a pure append of the one before, with the calls and results as provider-neutral messages', () => {
    const r = rig();
    const o = turn(r, 'What does src/a.ts export? Check README too.', [
      { text: 'Let me look.', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'src/a.ts' } }] },
      calls(['read_file', { path: 'README.md' }], ['list_files', { glob: 'src/**' }]),
      'It exports a0 … a79.',
    ]);
    assert.equal(o.status, 'done');
    assert.equal(r.requests.length, 3, 'three model calls');
    assertAppend(r.requests[0].messages, r.requests[1].messages, 'step 2');
    assertAppend(r.requests[1].messages, r.requests[2].messages, 'step 3');
    assert.ok(
      r.requests.every((q) => q.tools === TOOL_DEFINITIONS),
      'the same tools in every request',
    );
    // Step 2 appended: the assistant's words and call, then the result.
    const added = r.requests[1].messages.slice(r.requests[0].messages.length);
    assert.deepEqual(
      added.map((m) => m.role),
      ['assistant', 'tool'],
    );
    assert.deepEqual(
      added[0].content.map((b) => b.text),
      ['Let me look.'],
    );
    assert.deepEqual(added[0].toolCalls, [{ id: 'c1', name: 'read_file', args: { path: 'src/a.ts' } }]);
    assert.equal(added[1].toolCallId, 'c1');
    const block = added[1].content[0].text;
    assert.equal(extractBody(block), A_TS, 'the file verbatim in its block');
    // Step 3: two calls in one step, two tool messages.
    const added2 = r.requests[2].messages.slice(r.requests[1].messages.length);
    assert.deepEqual(
      added2.map((m) => m.role),
      ['assistant', 'tool', 'tool'],
    );
    assert.deepEqual(added2[0].content, [], 'a call without words has no text block');
    assert.match(added2[2].content[0].text, /^<tool id="tool:list_files@[0-9a-f]{8}" version="1" path="list_files src\/\*\*"/);
    // The outcome lists every request; the last is the envelope; envelopes match what was sent.
    assert.equal(o.requests.length, 2);
    assert.deepEqual(o.envelope!.messages.map(plain), r.requests[2].messages.map(plain));
    assert.deepEqual(
      o.toolSteps.map((s) => [s.step, s.name, s.status, s.reused ?? false]),
      [
        [1, 'read_file', 'done', false],
        [2, 'read_file', 'done', false],
        [2, 'list_files', 'done', false],
      ],
    );
    // Cache breakpoints: at most 4, the last block, the end of the previous request.
    const flags = (q: ChatRequest) =>
      q.messages
        .flatMap((m) => m.content)
        .map((b, i) => (b.cacheBreakpoint ? i : -1))
        .filter((i) => i >= 0);
    for (const q of r.requests) assert.ok(flags(q).length <= 4);
    const prevBlocks = r.requests[1].messages.flatMap((m) => m.content).length;
    assert.ok(flags(r.requests[2]).includes(prevBlocks - 1), 'a breakpoint where the previous request ended');
    // The text events: the first step's words, a paragraph break, the reply.
    const text = r.events
      .filter((e): e is Extract<TurnEvent, { type: 'text' }> => e.type === 'text')
      .map((e) => e.text)
      .join('');
    assert.equal(text, `Let me look.${STEP_TEXT_SEPARATOR}It exports a0 … a79.`);
    // The ledger: L3 items for the steps, marked with the tool and recoverable.
    const l3 = o.envelope!.ledger.layers[2].items;
    const read = l3.find((i) => i.key === 'file:src/a.ts');
    assert.ok(
      read && read.tool === 'read_file' && read.recoverable && read.status === 'full',
      'the file read is an L3 item, recoverable, by read_file',
    );
    assert.ok(l3.some((i) => i.segment === 'tool-call' && i.tool === 'read_file'));
  });

  it('each version is sent in full once: a file already in the request, or a range of it, comes back as a reference; a changed file as a new version', () => {
    const r = rig();
    turn(r, { userText: 'Here is a.ts', attachments: [{ kind: 'file', path: 'src/a.ts' }] }, ['Got it.']);
    const o = turn(r, 'Look at it again, lines 3-5, and b.ts', [
      calls(['read_file', { path: 'src/a.ts' }]),
      calls(['read_file', { path: 'src/a.ts', startLine: 3, endLine: 5 }], ['read_file', { path: 'src/b.ts' }]),
      'Done.',
    ]);
    const last = textOf(o.envelope!.messages);
    assert.equal(count(last, A_TS), 1, 'a.ts once, as attached in turn 1');
    assert.equal(count(last, B_TS), 1);
    const tools = o.envelope!.messages.filter((m) => m.role === 'tool').map((m) => m.content.map((b) => b.text).join(''));
    assert.match(
      tools[0],
      /^<ref id="file:src\/a\.ts" version="1" sha="[0-9a-f]{8}"\/> \(read again, unchanged: its full block is earlier in this conversation\)\n$/,
    );
    assert.match(
      tools[1],
      /^<ref id="file:src\/a\.ts" version="1" sha="[0-9a-f]{8}"\/> \(read again, unchanged: lines 3-5 of it are in its full block earlier in this conversation\)\n$/,
    );
    assert.deepEqual(
      o.toolSteps.map((s) => s.reused ?? false),
      [true, true, false],
    );
    assert.ok(o.toolSteps[0].resultTokens! < 60, 'a reference costs a line');

    // The file changes; reading it again sends the new version once.
    const changed = A_TS.replace('line 7 of a.ts', 'line 7 CHANGED');
    r.ws.write('src/a.ts', changed);
    const o3 = turn(r, 'Read a.ts once more', [calls(['read_file', { path: 'src/a.ts' }]), 'Changed.']);
    const text3 = textOf(o3.envelope!.messages);
    assert.equal(count(text3, A_TS), 1, 'the old version still once');
    assert.equal(count(text3, changed), 1, 'the new version once (freshness sent it this turn: the tool got a reference)');
    assert.equal(o3.toolSteps[0].key, 'file:src/a.ts@v2');
    assert.equal(o3.toolSteps[0].reused, true);
  });

  it('a file that changes between two reads of the same turn is sent again as a new version', () => {
    const r = rig();
    r.provider.push(calls(['read_file', { path: 'src/b.ts' }]));
    // The second step sees the edited file (the editor changed it while the model was working).
    const edited = 'export const b = 2; // edited\n';
    let n = 0;
    const provider = new ScriptedProvider(() => 'Both read.', {
      onRequest: () => {
        if (++n === 2) r.ws.write('src/b.ts', edited);
      },
    });
    provider.push(calls(['read_file', { path: 'src/b.ts' }]), calls(['read_file', { path: 'src/b.ts' }]));
    const o = r.pipeline.runSync({ userText: 'read b twice' }, provider, sendOpts(r));
    assert.deepEqual(o.violations, []);
    assert.deepEqual(
      o.toolSteps.map((s) => s.key),
      ['file:src/b.ts', 'file:src/b.ts@v2'],
    );
    const text = textOf(o.envelope!.messages);
    assert.equal(count(text, B_TS), 1);
    assert.equal(count(text, edited), 1);
  });

  it('refuses .env and ../ without content; the refusal is a tool note', () => {
    const r = rig();
    const o = turn(r, 'Read the secrets', [
      calls(['read_file', { path: '.env' }], ['read_file', { path: '../outside/config.json' }], ['search_text', { query: 'sk-live' }]),
      'I cannot.',
    ]);
    const text = JSON.stringify(r.requests.map((q) => q.messages));
    assert.ok(!text.includes('sk-live-TOOLSTEPS'), 'no secret in any request');
    const tools = o.envelope!.messages.filter((m) => m.role === 'tool').map((m) => m.content.map((b) => b.text).join(''));
    assert.match(tools[0], /^read_file refused \(excluded\): \.env matches the exclude pattern \*\*\/\.env/);
    assert.match(tools[1], /^read_file refused \(outside-workspace\): \.\.\/outside\/config\.json is outside the workspace/);
    assert.match(tools[2], /^search_text: no match for "sk-live"/);
    assert.deepEqual(
      o.toolSteps.map((s) => s.status),
      ['refused', 'refused', 'done'],
    );
    const notes = o.envelope!.ledger.layers[2].items.filter((i) => i.segment === 'tool-note');
    assert.equal(notes.length, 3);
  });

  it('the next turn extends the last request of a tool turn, and a reloaded chat renders the same next request', () => {
    const r = rig();
    const t1 = turn(r, 'Explore', [
      calls(['list_files', { glob: '**/*' }]),
      calls(['read_file', { path: 'src/b.ts' }], ['read_file', { path: 'src/a.ts' }]),
      'Explored.',
    ]);
    const t2 = turn(r, 'And now?', ['Now this.']);
    const last1 = t1.envelope!.messages;
    const first2 = r.requests[r.requests.length - 1].messages;
    assertAppend(last1, first2, 'turn 2 after a tool turn');
    assert.deepEqual(
      first2.slice(last1.length).map((m) => m.role),
      ['assistant', 'user'],
      'the reply, then the new message',
    );
    assert.equal(t2.envelope!.prefixBreak, false);
    assert.equal(t2.envelope!.ledger.cachedTokens, 1530, 'predicted cache hit of the whole tool turn');
    // Past tool blocks count as L2, the calls and notes as L4.
    const l2 = t2.envelope!.ledger.layers[1].items;
    assert.ok(l2.some((i) => i.key === 'file:src/b.ts' && i.tool === 'read_file'));
    assert.ok(t2.envelope!.ledger.layers[3].items.some((i) => i.segment === 'tool-call' && i.turn === 1));

    // Save and load the state; a fresh engine builds the same next request.
    const enc = JSON.parse(JSON.stringify(encodeState(r.pipeline.engine.state)));
    const blobs = new Map(stateBlobs(r.pipeline.engine.state).map((b) => [b.hash, b.text]));
    const restored = decodeState(enc, (h) => blobs.get(h)!);
    assert.deepEqual(restored.turns[0].steps, r.pipeline.engine.state.turns[0].steps);
    const live = r.pipeline.engine.buildTurn({ userText: 'next' });
    r.pipeline.engine.abandonTurn();
    const reloaded = new PromptContextEngine(r.pipeline.engine.options, restored).buildTurn({ userText: 'next' });
    assert.deepEqual(reloaded.messages, live.messages, 'byte-identical after a reload');
    assert.equal(reloaded.prefixHash, live.prefixHash);
  });

  it('the step limit: past strata.tools.maxSteps the calls get a note, and the next answer ends the turn', () => {
    const r = rig();
    const o = turn(
      r,
      'Loop forever',
      [
        calls(['read_file', { path: 'src/a.ts', startLine: 1, endLine: 1 }]),
        calls(['read_file', { path: 'src/a.ts', startLine: 2, endLine: 2 }]),
        calls(['read_file', { path: 'src/a.ts', startLine: 3, endLine: 3 }]),
        calls(['read_file', { path: 'src/a.ts', startLine: 4, endLine: 4 }]),
      ],
      {},
      { maxSteps: 2 },
    );
    assert.equal(o.status, 'done');
    assert.equal(r.requests.length, 4, 'maxSteps rounds, one round answered with notes, one last call');
    const tools = o.envelope!.messages.filter((m) => m.role === 'tool').map((m) => m.content.map((b) => b.text).join(''));
    assert.equal(tools.length, 3);
    assert.match(tools[2], /^\[read_file was not run: the limit of 2 tool steps in one turn was reached \(strata\.tools\.maxSteps\)/);
    assert.equal(o.status === 'done' && o.reply, '(The model answered with tool calls only.)');
    assert.equal(o.toolSteps[2].status, 'refused');
    assert.equal(r.pipeline.engine.state.turns[0].steps!.length, 3);
  });

  it("the turn's token ceiling: a result past strata.tools.maxTurnTokens is left out with a note", () => {
    const r = rig();
    const o = turn(
      r,
      'Read everything',
      [calls(['read_file', { path: 'src/b.ts' }], ['read_file', { path: 'src/a.ts' }]), 'Partly.'],
      {},
      { maxTurnTokens: 200 },
    );
    const tools = o.envelope!.messages.filter((m) => m.role === 'tool').map((m) => m.content.map((b) => b.text).join(''));
    assert.equal(extractBody(tools[0]), B_TS, 'the small file fits');
    assert.match(
      tools[1],
      /^\[read_file: the result \(\d+ tokens\) was left out: it would take this request past the context budget or past this turn's tool budget/,
    );
    assert.ok(!textOf(o.envelope!.messages).includes(A_TS));
    assert.deepEqual(
      o.toolSteps.map((s) => s.status),
      ['done', 'refused'],
    );
  });

  it('Stop during a tool loop: the steps done stay, what streamed is the reply, marked stopped; nothing after the Stop is sent', () => {
    const r = rig();
    const controller = new AbortController();
    // Stop while the second tool call of the first step runs.
    const ws = r.ws;
    const stopAfterFirstRead = new Proxy(ws, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop === 'resolve') {
          return (spec: Parameters<MemoryWorkspace['resolve']>[0]) => {
            const out = target.resolve(spec);
            if (spec.path === 'src/b.ts') controller.abort();
            return out;
          };
        }
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    r.provider.push(
      { text: 'Reading both.', toolCalls: [{ id: 's1', name: 'read_file', args: { path: 'src/a.ts' } }] },
      calls(['read_file', { path: 'src/b.ts' }], ['read_file', { path: 'README.md' }]),
      'never',
    );
    const o = r.pipeline.runSync({ userText: 'read' }, r.provider, {
      ...sendOpts(r),
      signal: controller.signal,
      tools: {
        definitions: TOOL_DEFINITIONS,
        executor: new ToolExecutor(stopAfterFirstRead, tokenizer),
        maxSteps: 8,
        maxTurnTokens: 60_000,
      },
    });
    assert.equal(o.status, 'stopped');
    assert.equal(o.status === 'stopped' && o.kept, true);
    assert.equal(r.requests.length, 2, 'no request after the Stop');
    const rec = r.pipeline.engine.state.turns[0];
    assert.equal(rec.steps!.length, 1, 'the first step stays');
    assert.equal(rec.reply, '(Stopped by the user.)');
    // The chat goes on from there: the next request extends the stopped turn's.
    const next = turn(r, 'Continue', ['ok']);
    assert.equal(next.envelope!.prefixBreak, false);
  });

  it('under budget pressure, what tools read is cut before anything the user attached, and compaction hints name read_file', () => {
    const big = (name: string) =>
      Array.from(
        { length: 120 },
        (_, i) => `export function ${name}${i}(x: number): number { return x * ${i}; } // ${name} line ${i + 1}`,
      ).join('\n') + '\n';
    const fs = { 'src/user.ts': big('user'), 'src/tool1.ts': big('toolOne'), 'src/tool2.ts': big('toolTwo'), 'src/more.ts': big('more') };
    const r = rig({ files: fs, engine: { limits: { contextWindow: 14_000, maxOutputTokens: 1000 } } });
    turn(r, { userText: 'Mine', attachments: [{ kind: 'file', path: 'src/user.ts' }] }, ['ok']);
    turn(r, 'Read two', [calls(['read_file', { path: 'src/tool1.ts' }]), calls(['read_file', { path: 'src/tool2.ts' }]), 'read']);
    const o = turn(r, { userText: 'And this one', attachments: [{ kind: 'file', path: 'src/more.ts' }] }, ['fine']);
    const cuts = o.envelope!.pruned.map((p) => `${p.reason}:${p.item}`);
    assert.deepEqual(
      cuts.slice(0, 2),
      ['tool-result:file:src/tool1.ts', 'tool-result:file:src/tool2.ts'],
      `tool results first, oldest first: ${cuts.join(', ')}`,
    );
    assert.ok(
      cuts.slice(2).every((c) => !c.startsWith('tool-result:')),
      `then what the user attached: ${cuts.join(', ')}`,
    );
    // Each cut shows at once: the turn that read the file is rendered again with the stub (it used to
    // keep the full result until a summary re-rendered the history, so pruning went on cutting).
    for (const p of o.envelope!.pruned.filter((x) => x.reason === 'tool-result'))
      assert.ok(p.postTokens < p.preTokens, `${p.item}: ${p.preTokens} → ${p.postTokens} tokens`);
    const stub = textOf(o.envelope!.messages).match(/<removed id="file:src\/tool1\.ts" version="1"\/> \([^)]*\)/)?.[0];
    assert.equal(stub, '<removed id="file:src/tool1.ts" version="1"/> (dropped to fit the context budget; call the tool again to see it)');
    // Compaction's recovery hint: read_file with tools on, re-attach without.
    const body = `export function long(x: number): number {\n${Array.from({ length: 200 }, (_, i) => `  x = x * ${i} + 1; // step ${i + 1}`).join('\n')}\n  return x;\n}\n`;
    for (const tools of [true, false]) {
      const e = engine({ tools, limits: { contextWindow: 16_000, maxOutputTokens: 1000 } });
      e.buildTurn({ userText: 'x', attachments: [{ kind: 'file', uri: 'src/user.ts', content: body }] });
      e.completeTurn('ok');
      const env = e.buildTurn({ userText: 'compact it', targetPercentOverride: 10 });
      assert.ok(
        env.pruned.some((p) => p.reason === 'compacted'),
        'the file was compacted',
      );
      const hint = tools
        ? 'Call read_file on src/user.ts (with startLine and endLine for a part) to see the rest.'
        : 'Ask the user to re-attach src/user.ts to see it in full.';
      assert.ok(textOf(env.messages).includes(hint), `the hint: ${hint}`);
    }
  });

  it("a cut reports its key's tokens once when a turn both attached a file and had a tool read it again", () => {
    const big = (name: string) =>
      Array.from(
        { length: 120 },
        (_, i) => `export function ${name}${i}(x: number): number { return x * ${i}; } // ${name} line ${i + 1}`,
      ).join('\n') + '\n';
    const r = rig({
      files: { 'src/user.ts': big('user'), 'src/more.ts': big('more') },
      engine: { limits: { contextWindow: 8_000, maxOutputTokens: 1000 } },
    });
    const first = turn(r, { userText: 'Mine; read it too', attachments: [{ kind: 'file', path: 'src/user.ts' }] }, [
      calls(['read_file', { path: 'src/user.ts' }]),
      'read',
    ]);
    // The turn names the file twice: its attachment (the block) and the tool's result (a reference to it).
    const blocks = first.envelope!.layers.flatMap((l) => l.segments).filter((g) => g.artifactKey === 'file:src/user.ts');
    assert.deepEqual(
      blocks.map((g) => g.kind),
      ['artifact', 'reference'],
    );
    const o = turn(r, { userText: 'And this one', attachments: [{ kind: 'file', path: 'src/more.ts' }] }, ['fine']);
    const cut = o.envelope!.pruned.find((p) => p.item === 'file:src/user.ts');
    assert.ok(cut, `the older file is cut: ${o.envelope!.pruned.map((p) => p.item).join(', ')}`);
    assert.equal(
      cut.preTokens,
      blocks.reduce((n, g) => n + g.tokens, 0),
      'the tokens of its blocks in the request, each counted once',
    );
  });

  it('library layout: the steps are appended to the current message; the next turn carries what the tools read in L2', () => {
    const r = rig({ engine: { layout: 'library' } });
    const t1 = turn(r, 'Read b', [calls(['read_file', { path: 'src/b.ts' }]), 'b adds one.']);
    assertAppend(r.requests[0].messages, r.requests[1].messages, 'library step');
    assert.equal(t1.envelope!.ledger.layers[2].items.filter((i) => i.key === 'file:src/b.ts').length, 1);
    const t2 = turn(r, 'And?', ['And nothing.']);
    const system = t2.envelope!.messages[0].content.map((b) => b.text).join('');
    assert.equal(count(system, B_TS), 1, 'b.ts in the library');
    assert.ok(
      t2.envelope!.messages.every((m) => m.role !== 'tool'),
      'library history keeps no tool messages',
    );
    const check = checkEnvelope(t2.envelope!, t2.envelope!.budget, { hasher: { sha256Hex }, ...r.pipeline.engine.checkContext() });
    assert.deepEqual(check, []);
  });

  it('without tools the requests are what they were: no tools offered, nothing appended', () => {
    const r = rig({ engine: { tools: false } });
    r.provider.push('plain');
    const o = r.pipeline.runSync({ userText: 'hi' }, r.provider, { model: 'scripted', maxOutputTokens: 256 });
    assert.equal(o.status, 'done');
    assert.equal(r.requests[0].tools, undefined);
    assert.deepEqual(o.requests, []);
    assert.deepEqual(o.toolSteps, []);
  });
});
