import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { StrataApi } from '../../src/extension';
import { ChatSession } from '../../src/services/chatSession';
import { ScriptedProvider } from '../../src/services/providers/scripted';
import { getTokenizer } from '../../src/services/tokenizer';
import { modelInfo } from '../../src/services/modelInfo';
import { PanelDriver, strataApi, until, withTimeout } from './support/panel';
import { ThreadClock } from './support/threadClock';

/**
 * Speed in the real extension host: opening a 500-message chat in the panel — the host's
 * part (load from disk, build the panel state, post it); the webview's rendering of the same 500
 * messages is measured in test/webview/bench.test.ts — and how long a streamed chunk spends in the
 * host between the provider and the panel.
 */

const REPLY =
  'Here is how it works:\n\n```ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```\n\nThe function is pure; call it with two numbers. '.repeat(
    2,
  );

describe('Speed in the real editor', function () {
  this.timeout(180_000);
  let api: StrataApi;
  let panel: PanelDriver;

  before(async () => {
    api = await strataApi();
    await vscode.commands.executeCommand('strata.chat.focus');
    await withTimeout(api.whenChatReady(), 30_000, 'the chat webview saying ready');
    panel = new PanelDriver(api);
  });

  after(() => panel?.dispose());

  it('opens a 500-message chat in the panel: the host part within 300 ms (prints it)', async () => {
    // 250 turns written through a second session on the same store, as another window would.
    const writer = ChatSession.open(
      {
        storeRoot: api.testing.session.store.root,
        port: api.testing.workspace,
        tokenizer: getTokenizer,
        settings: () => ({ layout: 'transcript', policy: 'append-version' }),
        store: { durable: false },
      },
      'perf-500-messages',
    );
    writer.setModel(modelInfo('scripted', 'gpt-4o'));
    const provider = new ScriptedProvider();
    const started = performance.now();
    for (let t = 1; t <= 250; t++) {
      provider.push(`${t}. ${REPLY}`);
      const outcome = await writer.send(`Question ${t}: how does add work in this case?`, provider);
      assert.equal(outcome.status, 'done');
    }
    const chatId = writer.activeChatId;
    console.log(`    wrote a 250-turn chat in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // Wall clock includes the time other processes hold the cores; the figure checked is the time
    // the host's main thread ran on a core (Linux), the wall clock where that cannot be read.
    const clock = new ThreadClock();
    const times: number[] = [];
    const onCore: number[] = [];
    const meterTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      await api.testing.controller.newChat();
      panel.clear();
      const t0 = performance.now();
      const ran0 = clock.now().ran;
      await panel.requestOk({ kind: 'switchChat', chatId });
      await until('the panel state', () => panel.of('state').some((m) => m.state.chatId === chatId));
      times.push(performance.now() - t0);
      onCore.push(clock.now().ran - ran0);
      const state = panel.of('state').find((m) => m.state.chatId === chatId)!.state;
      assert.equal(state.messages.length, 50, 'the newest 50 messages first');
      assert.equal(state.hasOlder, true);
      // A chat this long is counted after its messages are shown: the meter follows the state.
      assert.equal(state.meter, undefined, 'the state leaves the meter out');
      await until('the meter after the state', () => panel.of('meter').length > 0);
      meterTimes.push(performance.now() - t0);
      const order = panel.posted.map((m) => m.type);
      assert.ok(order.indexOf('meter') > order.indexOf('state'), `the meter comes after the state: ${order.join(', ')}`);
      assert.equal(
        panel.last('meter')!.meter.used,
        api.testing.session.predictedEnvelope()!.totalTokens,
        'the meter counts the predicted request',
      );
    }
    console.log(`    then its meter: median ${[...meterTimes].sort((a, b) => a - b)[1].toFixed(1)} ms after the switch`);
    clock.close();
    const best = Math.min(...times);
    const median = [...times].sort((a, b) => a - b)[1];
    const coreMedian = [...onCore].sort((a, b) => a - b)[1];
    const readable = onCore.every((ms) => ms > 0);
    console.log(
      `    500-message chat, host part (load + panel state + post): median ${median.toFixed(1)} ms, best ${best.toFixed(1)} ms wall clock; ${readable ? `median ${coreMedian.toFixed(1)} ms on a core` : 'no on-core figure here'} (target for the whole open 300 ms)`,
    );
    const checked = readable ? coreMedian : median;
    assert.ok(checked <= 300, `opening took ${checked.toFixed(1)} ms in the host alone (${readable ? 'on a core' : 'wall clock'})`);
    // Older messages load on request.
    panel.clear();
    await panel.requestOk({ kind: 'loadOlder', chatId, beforeTurn: 226 });
    const older = panel.last('olderMessages');
    assert.ok(older, 'the older messages came');
    // A page of 50 turns (twice the first), each a question and a reply: turns 176–225.
    assert.equal(older.messages.length, 100);
    assert.deepEqual([older.messages[0].turn, older.messages[older.messages.length - 1].turn], [176, 225]);
    assert.equal(older.hasOlder, true);
  });
});
