import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { LAYER_TITLES } from '../../src/common/numberFormat';
import type { StrataApi } from '../../src/extension';
import type { HostToWebviewMessage } from '../../src/protocol/messages';
import type { LedgerTreeNode } from '../../src/services/ledgerTree';
import type { ChatMessage } from '../../src/engine/types';
import { startOpenAIImitation, type OpenAIImitationServer } from '../support/imitationServers';
import { configure, PanelDriver, strataApi, until, withTimeout } from './support/panel';

/**
 * Workspace tools in the real editor: a turn in which the model reads the workspace
 * itself, through the panel against the OpenAI imitation server (real HTTP, LangChain with
 * bindTools, streamed tool calls), with the host's tool port (findFiles, the editor's buffers,
 * isolation on real paths); the panel's tool steps; the Context Layers tree after the turn; Stop
 * in the middle of the loop.
 */

const MATH_TS =
  'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n';

function plain(m: ChatMessage): unknown {
  return { role: m.role, texts: m.content.map((b) => b.text), toolCalls: m.toolCalls, toolCallId: m.toolCallId };
}

function flatten(nodes: readonly LedgerTreeNode[], api: StrataApi, depth = 0): LedgerTreeNode[] {
  const out: LedgerTreeNode[] = [];
  for (const n of nodes) {
    out.push(n);
    if (depth < 4) out.push(...flatten(api.testing.tree.getChildren(n), api, depth + 1));
  }
  return out;
}

describe('Workspace tools in the real editor', function () {
  this.timeout(120_000);
  let api: StrataApi;
  let panel: PanelDriver;
  let openai: OpenAIImitationServer;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
    openai = await startOpenAIImitation({ deltaChars: 5 });
    await configure(api, { provider: 'openai', baseUrl: openai.url, model: 'gpt-4o', 'tools.enabled': true });
  });

  after(async () => {
    panel?.dispose();
    await openai?.close();
    await configure(api, { provider: undefined, baseUrl: undefined, model: undefined, 'tools.enabled': undefined });
  });

  beforeEach(async () => {
    await api.testing.controller.newChat();
    panel.clear();
  });

  it('a tool turn through the panel: the model reads a file and is refused .env and ../; each request a pure append; the steps in the panel and the tree', async () => {
    const before = openai.chatRequests.length;
    openai.queueReply(
      {
        text: 'Let me read it.',
        toolCalls: [
          { name: 'read_file', args: { path: 'app/src/math.ts' } },
          { name: 'read_file', args: { path: 'app/.env' } },
        ],
      },
      {
        toolCalls: [
          { name: 'read_file', args: { path: '../outside.txt' } },
          { name: 'list_files', args: { glob: 'app/src/**' } },
        ],
      },
      'add returns a + b.',
    );
    const { started, ended } = await panel.sendAndWait('What does add do?');
    const reqs = openai.chatRequests.slice(before);
    assert.equal(reqs.length, 3, 'three model requests');
    for (let i = 1; i < reqs.length; i++) {
      const prev = reqs[i - 1].messages!;
      assert.deepEqual(reqs[i].messages!.slice(0, prev.length).map(plain), prev.map(plain), `request ${i + 1} extends request ${i}`);
    }
    assert.ok(
      reqs.every((r) => r.tools?.includes('read_file')),
      'tools offered in every request',
    );
    const last = reqs[2].messages!;
    const text = last.map((m) => m.content.map((b) => b.text).join('')).join('\n');
    assert.equal(text.split(MATH_TS).length - 1, 1, 'math.ts once, verbatim');
    assert.ok(!text.includes('FAKE_TOKEN'), 'nothing of .env');
    const results = last.filter((m) => m.role === 'tool').map((m) => m.content.map((b) => b.text).join(''));
    assert.match(results[1], /^read_file refused \(excluded\)/);
    assert.match(results[2], /^read_file refused \(outside-workspace\)/);
    assert.match(results[3], /app\/src\/math\.ts/, 'list_files found it');

    // The panel: each call as a step, running then done or refused, and the final message with them.
    const steps = panel.posted.filter(
      (m): m is Extract<HostToWebviewMessage, { type: 'toolStep' }> => m.type === 'toolStep' && m.turnId === started.turnId,
    );
    const byId = new Map<string, string[]>();
    for (const s of steps) byId.set(s.step.id, [...(byId.get(s.step.id) ?? []), s.step.status]);
    assert.equal(byId.size, 4);
    for (const statuses of byId.values()) assert.equal(statuses[0], 'running');
    assert.deepEqual(
      ended.assistant.toolSteps?.map((s) => `${s.name}:${s.status}`),
      ['read_file:done', 'read_file:refused', 'read_file:refused', 'list_files:done'],
    );
    assert.ok(ended.assistant.toolSteps!.every((s) => s.resultTokens !== undefined && s.cachedTokens !== undefined));
    assert.equal(ended.assistant.text, 'Let me read it.\n\nadd returns a + b.');
    assert.equal(ended.kept, true);

    // The tree after the turn: the last request's L3 holds what the tools read, recoverable, with the tool.
    const isL3 = (n: { label: string; description?: string }) => n.label === LAYER_TITLES.L3 && / · L3$/.test(n.description ?? '');
    await until('the tree shows the request', () => flatten(api.testing.tree.getChildren(), api).some(isL3));
    const nodes = flatten(api.testing.tree.getChildren(), api);
    const l3 = nodes.find(isL3);
    assert.ok(l3, 'an L3 node');
    const l3Items = api.testing.tree.getChildren(l3);
    const read = l3Items.find((n) => n.name === 'app/src/math.ts');
    assert.ok(read, `the file read is an L3 item: ${l3Items.map((n) => n.name ?? n.label).join(' | ')}`);
    assert.equal(read.recoverable, true);
    assert.match(read.description ?? '', /read_file · recoverable/);
    assert.ok(
      l3Items.some((n) => n.icon === 'tool' && /tool call/i.test(n.label)),
      'the calls are listed',
    );

    // Reload: the chat shows the steps again.
    const { messages } = api.testing.session.messages({ last: 1 });
    assert.deepEqual(
      messages.find((m) => m.role === 'assistant')?.toolSteps?.map((s) => s.name),
      ['read_file', 'read_file', 'read_file', 'list_files'],
    );
  });

  it('Stop in the middle of the tool loop ends it at once and keeps the steps done', async () => {
    const slow = await startOpenAIImitation({ deltaChars: 2, chunkDelayMs: 40 });
    try {
      await configure(api, { baseUrl: slow.url });
      slow.queueReply(
        { toolCalls: [{ name: 'read_file', args: { path: 'lib/index.ts' } }] },
        'A long answer that streams slowly enough to be stopped in the middle of it.',
        'never',
      );
      const from = panel.posted.length;
      await panel.requestOk({ kind: 'send', text: 'Read lib' });
      await until('the answer streams after the tool step', () => panel.posted.slice(from).filter((m) => m.type === 'chunk').length >= 4);
      const stoppedAt = Date.now();
      await panel.requestOk({ kind: 'stop' });
      await withTimeout(api.testing.controller.whenTurnDone(), 5000, 'the stopped turn to end');
      assert.ok(Date.now() - stoppedAt < 2000, 'ended at once');
      assert.equal(slow.chatRequests.length, 2, 'no request after the Stop');
      const ended = panel.posted.slice(from).find((m): m is Extract<HostToWebviewMessage, { type: 'turnEnded' }> => m.type === 'turnEnded');
      assert.ok(ended);
      assert.equal(ended.kept, true);
      assert.equal(ended.assistant.status, 'stopped');
      assert.deepEqual(
        ended.assistant.toolSteps?.map((s) => `${s.name}:${s.status}`),
        ['read_file:done'],
      );
      const saved = api.testing.session.store.loadChat(api.testing.session.activeChatId);
      assert.equal(saved.state.turns[0].steps?.length, 1);
      assert.equal(saved.turns[0].stopped, true);
    } finally {
      await slow.close();
      await configure(api, { baseUrl: openai.url });
    }
  });
});
