/**
 * The check before every request covers excerpts, not only whole files: a selection, a range of a
 * file a tool read, and the lines `search_text` returned, of a file that has since become excluded
 * (or a link out), leave the next request — reported as rejections once — and a search result keeps
 * the lines of the files that still pass; so do the names `list_files` returned. Nothing changes
 * while every source passes.
 */
import * as assert from 'node:assert/strict';
import { PromptContextEngine } from '../../../../src/engine/engine';
import { DEFAULT_EXCLUDES, IsolationPolicy } from '../../../../src/engine/isolation';
import { lineSourceCandidates } from '../../../../src/engine/excerptSources';
import { decodeState, encodeState, stateBlobs } from '../../../../src/engine/stateCodec';
import type { ChatMessage } from '../../../../src/engine/types';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import type { ChatRequest } from '../../../../src/services/providers/types';
import { GuardedTokenizer } from '../../../../src/services/tokenizer';
import { TOOL_DEFINITIONS } from '../../../../src/services/tools/definitions';
import { ToolExecutor } from '../../../../src/services/tools/executor';
import { TurnPipeline, type SendOptions, type TurnOutcome } from '../../../../src/services/turnPipeline';

const tokenizer = new GuardedTokenizer('o200k_base');
const SECRET_A = 'DB_PASSWORD_SELECTED_hunter2';
const SECRET_B = 'API_TOKEN_RANGE_READ_s3cr3t';
const SECRET_C = 'MARKER_SEARCH_LINE_in_config';

function workspace(): MemoryWorkspace {
  return new MemoryWorkspace({
    'config/prod.ts': `export const db = '${SECRET_A}';\nexport const api = '${SECRET_B}';\n// ${SECRET_C} MARKER\n`,
    'src/app.ts': 'import { db } from "../config/prod";\n// MARKER in app\nexport const app = 1;\n',
    'README.md': '# app\n',
  });
}

function text(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content.map((b) => b.text).join('')).join('\n');
}

function setup(): { ws: MemoryWorkspace; pipeline: TurnPipeline; requests: ChatRequest[]; provider: ScriptedProvider; send: SendOptions } {
  const ws = workspace();
  const engine = new PromptContextEngine({
    conversationId: 'excerpts',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer,
    system: 'You are a coding assistant.',
    limits: { contextWindow: 128_000, maxOutputTokens: 1024 },
    tools: true,
  });
  const requests: ChatRequest[] = [];
  const provider = new ScriptedProvider(() => 'ok', { onRequest: (r) => requests.push(r) });
  const send: SendOptions = {
    model: 'scripted',
    maxOutputTokens: 256,
    tools: { definitions: TOOL_DEFINITIONS, executor: new ToolExecutor(ws, tokenizer), maxSteps: 4, maxTurnTokens: 60_000 },
  };
  return { ws, pipeline: new TurnPipeline({ engine, port: ws, check: true }), requests, provider, send };
}

/** Turn 1: the user attaches a selection of config/prod.ts; the model reads a range of it and searches. */
function firstTurn(h: ReturnType<typeof setup>): TurnOutcome {
  h.provider.push(
    {
      text: '',
      toolCalls: [
        { id: 'c1', name: 'read_file', args: { path: 'config/prod.ts', startLine: 2, endLine: 2 } },
        { id: 'c2', name: 'search_text', args: { query: 'MARKER' } },
      ],
    },
    'read them',
  );
  const o = h.pipeline.runSync(
    { userText: 'look', attachments: [{ kind: 'selection', path: 'config/prod.ts', startLine: 1, endLine: 1 }] },
    h.provider,
    h.send,
  );
  assert.equal(o.status, 'done', JSON.stringify(o.status === 'error' ? o.error : o.status));
  const last = text(h.requests[h.requests.length - 1].messages);
  for (const s of [SECRET_A, SECRET_B, SECRET_C]) assert.ok(last.includes(s), `turn 1 carries ${s}`);
  return o;
}

describe('the check before every request covers excerpts', () => {
  it('a selection, a ranged read and search lines of a newly excluded file leave the next request, once reported', () => {
    const h = setup();
    firstTurn(h);
    h.ws.setIsolation(new IsolationPolicy([...DEFAULT_EXCLUDES, 'config/**']));
    const before = h.requests.length;
    const t2 = h.pipeline.runSync({ userText: 'and now?' }, h.provider, h.send);
    assert.equal(t2.status, 'done', JSON.stringify(t2.status === 'error' ? t2.error : t2.status));
    assert.deepEqual(t2.violations, []);
    const sent = text(h.requests[before].messages);
    for (const s of [SECRET_A, SECRET_B, SECRET_C]) assert.ok(!sent.includes(s), `turn 2 does not carry ${s}`);
    assert.ok(sent.includes('src/app.ts:2: // MARKER in app'), 'the search line of a file that still passes stays');
    assert.deepEqual(
      t2.rejections.map((r) => [r.attachment, r.reason]),
      [
        ['config/prod.ts#L1-L1', 'excluded'],
        ['config/prod.ts#L2-L2', 'excluded'],
        ['search_text "MARKER"', 'excluded'],
      ],
    );
    assert.match(t2.rejections[2].message, /1 line from config\/prod\.ts was removed from the context/);
    // Reported once: the next turn neither carries them nor reports them again.
    const t3 = h.pipeline.runSync({ userText: 'third' }, h.provider, h.send);
    assert.equal(t3.status, 'done');
    assert.deepEqual(t3.rejections, []);
    const third = text(h.requests[h.requests.length - 1].messages);
    for (const s of [SECRET_A, SECRET_B, SECRET_C]) assert.ok(!third.includes(s), `turn 3 does not carry ${s}`);
    assert.ok(third.includes('src/app.ts:2: // MARKER in app'));
  });

  it('after a reload (the chat decoded from its saved state) the check still applies', () => {
    const h = setup();
    firstTurn(h);
    const saved = h.pipeline.engine.state;
    const blobs = new Map(stateBlobs(saved).map((b) => [b.hash, b.text]));
    const reloaded = decodeState(JSON.parse(JSON.stringify(encodeState(saved))), (hash) => blobs.get(hash)!);
    const engine = new PromptContextEngine(h.pipeline.engine.options, reloaded);
    h.pipeline.engine = engine;
    h.ws.setIsolation(new IsolationPolicy([...DEFAULT_EXCLUDES, 'config/**']));
    const before = h.requests.length;
    const t2 = h.pipeline.runSync({ userText: 'after reload' }, h.provider, h.send);
    assert.equal(t2.status, 'done');
    const sent = text(h.requests[before].messages);
    for (const s of [SECRET_A, SECRET_B, SECRET_C]) assert.ok(!sent.includes(s), `no ${s} after a reload`);
    assert.equal(t2.rejections.length, 3);
  });

  it('while every source passes, nothing changes: no rejection, the excerpts stay', () => {
    const h = setup();
    firstTurn(h);
    const before = h.requests.length;
    const t2 = h.pipeline.runSync({ userText: 'again' }, h.provider, h.send);
    assert.deepEqual(t2.rejections, []);
    const sent = text(h.requests[before].messages);
    for (const s of [SECRET_A, SECRET_B, SECRET_C]) assert.ok(sent.includes(s));
  });

  it('names list_files returned of files now excluded leave the next request; the other names stay', () => {
    const h = setup();
    h.provider.push({ text: '', toolCalls: [{ id: 'l1', name: 'list_files', args: { glob: '**/*.ts' } }] }, 'listed');
    const t1 = h.pipeline.runSync({ userText: 'what is there?' }, h.provider, h.send);
    assert.equal(t1.status, 'done');
    const first = text(h.requests[h.requests.length - 1].messages);
    assert.ok(first.includes('config/prod.ts') && first.includes('src/app.ts'), 'turn 1 lists both files');
    h.ws.setIsolation(new IsolationPolicy([...DEFAULT_EXCLUDES, 'config/**']));
    const before = h.requests.length;
    const t2 = h.pipeline.runSync({ userText: 'and now?' }, h.provider, h.send);
    assert.equal(t2.status, 'done', JSON.stringify(t2.status === 'error' ? t2.error : t2.status));
    assert.deepEqual(t2.violations, []);
    const sent = text(h.requests[before].messages);
    assert.ok(!sent.includes('config/prod.ts'), 'turn 2 does not carry the name of the excluded file');
    assert.ok(sent.includes('src/app.ts'), 'the name of a file that still passes stays');
    assert.deepEqual(
      t2.rejections.map((r) => [r.attachment, r.reason]),
      [['list_files **/*.ts', 'excluded']],
    );
    assert.match(t2.rejections[0].message, /1 line from config\/prod\.ts was removed from the context/);
    // The listing turn 1 carried stands as a stub that says why it left (not "by the user").
    assert.match(sent, /\(removed from the context: its file is now excluded, so it is no longer sent\)/);
    assert.ok(!sent.includes('removed from the context by the user'));
    // Saved and read back, the chat still knows why: the stub is re-sent with the same words.
    const saved = h.pipeline.engine.state;
    const blobs = new Map(stateBlobs(saved).map((b) => [b.hash, b.text]));
    const reloaded = decodeState(JSON.parse(JSON.stringify(encodeState(saved))), (hash) => blobs.get(hash)!);
    assert.deepEqual(
      [...reloaded.entries.values()].filter((e) => e.withdrawn).map((e) => [e.key, e.withdrawn]),
      [...saved.entries.values()].filter((e) => e.withdrawn).map((e) => [e.key, e.withdrawn]),
    );
    assert.ok([...reloaded.entries.values()].some((e) => e.withdrawn === 'excluded'));
    h.pipeline.engine = new PromptContextEngine(h.pipeline.engine.options, reloaded);
    const t3 = h.pipeline.runSync({ userText: 'after reload' }, h.provider, h.send);
    assert.equal(t3.status, 'done');
    assert.match(
      text(h.requests[h.requests.length - 1].messages),
      /\(removed from the context: its file is now excluded, so it is no longer sent\)/,
    );
  });

  it('a search line names every prefix it could have come from', () => {
    assert.deepEqual(lineSourceCandidates('src/a.ts:12: x = {a:3: b}'), ['src/a.ts', 'src/a.ts:12: x = {a']);
    assert.deepEqual(lineSourceCandidates('src/a.ts:4:2: error: bad'), ['src/a.ts', 'src/a.ts:4']);
    assert.deepEqual(lineSourceCandidates('[truncated at line 3]'), []);
  });
});
