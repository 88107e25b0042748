import * as assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { ChatMessage, Role } from '../../src/engine/types';
import { TOOL_DEFINITIONS } from '../../src/services/tools/definitions';
import { editorLmFeatures, editorModels, VscodeLmProvider } from '../../src/host/providers/vscodeLmProvider';
import * as net from 'node:net';
import { configure, strataApi } from './support/panel';
import type { ResolvedProvider } from '../../src/host/providers/providerResolver';
import { ProviderError, type ChatRequest, type StreamEvent } from '../../src/services/providers/types';

/**
 * Strata's `vscode-lm` provider against a real `vscode.lm` model: the test-only extension in
 * test/fixtures/fake-lm-extension (loaded by the harness as a second development extension) offers
 * a deterministic model through `vscode.lm.registerLanguageModelChatProvider`; requests go
 * extension → workbench → fake provider and back, as they would to Copilot or any other vendor.
 */

/**
 * Listens on Ollama's default port for the length of a test: `auto` must never contact a local
 * server the user did not choose (SECURITY.md), so any connection there counts against it.
 */
async function watchOllamaPort(): Promise<{ connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error('127.0.0.1:11434 is in use (a local Ollama?): this test needs it free to see that `auto` never contacts it')
          : err,
      ),
    );
    server.listen(11434, '127.0.0.1', resolve);
  });
  return {
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Resolves the provider as Strata does for a send, with `strata.provider` on `auto` and no base URL or model set. */
async function resolveAuto(): Promise<ResolvedProvider> {
  const api = await strataApi();
  const config = vscode.workspace.getConfiguration('strata');
  const keys = ['provider', 'baseUrl', 'model'] as const;
  const before = keys.map((key) => config.inspect(key)?.globalValue);
  await configure(api, { provider: 'auto', baseUrl: '', model: '' });
  try {
    return await api.testing.resolver.resolve();
  } finally {
    await configure(api, Object.fromEntries(keys.map((key, i) => [key, before[i]])));
  }
}

const FAKE_EXTENSION_ID = 'strata-dev.strata-fake-lm';
/** Stop is to end the stream within 200 ms; this suite's bound covers the whole round trip. */
const CANCEL_BOUND_MS = 500;

interface FakeRequest {
  modelId: string;
  messages: {
    role: string;
    text: string;
    calls: { callId: string; name: string; input: unknown }[];
    results: { callId: string; text: string }[];
  }[];
  tools: string[];
  startedAt: number;
  cancelledAt?: number;
  endedAt?: number;
  partsReported: number;
  partsAfterCancel: number;
  outcome: 'running' | 'completed' | 'cancelled' | 'failed';
}

interface FakeLm {
  /** The editor has `vscode.lm.registerLanguageModelChatProvider` (not in the oldest VS Code the harness runs). */
  available: boolean;
  vendor: string;
  model: { id: string; name: string; family: string; version: string; maxInputTokens: number; maxOutputTokens: number };
  requests: FakeRequest[];
  enable(): void;
  disable(): void;
  readonly enabled: boolean;
  reset(): void;
}

interface Timed {
  event: StreamEvent;
  at: number;
}

interface Outcome {
  events: Timed[];
  error?: unknown;
  endedAt: number;
}

function msg(role: Role, ...texts: string[]): ChatMessage {
  return { role, content: texts.map((text) => ({ type: 'text' as const, text })) };
}

function request(messages: ChatMessage[], model: string, signal?: AbortSignal): ChatRequest {
  return { messages, model, conversationId: 'it-vscode-lm', maxOutputTokens: 256, signal };
}

/** Reads the whole stream, recording when each event arrived; `onEvent` may abort mid-stream. */
async function drive(stream: AsyncIterable<StreamEvent>, onEvent?: (event: StreamEvent, index: number) => void): Promise<Outcome> {
  const events: Timed[] = [];
  try {
    for await (const event of stream) {
      events.push({ event, at: performance.now() });
      onEvent?.(event, events.length - 1);
    }
    return { events, endedAt: performance.now() };
  } catch (error) {
    return { events, error, endedAt: performance.now() };
  }
}

function texts(outcome: Outcome): Extract<StreamEvent, { type: 'text' }>[] {
  return outcome.events.map((t) => t.event).filter((e): e is Extract<StreamEvent, { type: 'text' }> => e.type === 'text');
}

/** What the fake model echoes for the messages it received (see the fake extension's header). */
function expectedEcho(received: { role: string; text: string }[]): string {
  return [
    `messages=${received.length}\n`,
    ...received.map((m, i) => `#${i} ${m.role} ${JSON.stringify(m.text.slice(0, 24))}\n`),
    'end\n',
  ].join('');
}

function assertProviderError(error: unknown, code: ProviderError['code']): ProviderError {
  assert.ok(
    error instanceof ProviderError,
    `expected a ProviderError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  );
  assert.equal(error.code, code, `code of "${error.message}"`);
  return error;
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function lastRequest(fake: FakeLm): FakeRequest {
  const last = fake.requests[fake.requests.length - 1];
  assert.ok(last, 'the fake model received no request');
  return last;
}

async function activateFake(): Promise<FakeLm> {
  const extension = vscode.extensions.getExtension<FakeLm>(FAKE_EXTENSION_ID);
  assert.ok(
    extension,
    `${FAKE_EXTENSION_ID} is not loaded: the harness must pass test/fixtures/fake-lm-extension as a second extensionDevelopmentPath (scripts/harness/run-integration.js)`,
  );
  return extension.activate();
}

/** Whether this editor lets an extension offer a chat model; the oldest VS Code the harness runs does not. */
const canRegisterModels =
  typeof (vscode.lm as { registerLanguageModelChatProvider?: unknown }).registerLanguageModelChatProvider === 'function';
const [major, minor] = vscode.version.split('.').map(Number);

describe('vscode-lm feature checks in this VS Code', () => {
  it(`tool calling is on exactly from VS Code 1.95 (this is ${vscode.version})`, () => {
    const expected = major > 1 || minor >= 95;
    assert.deepEqual(editorLmFeatures(), { toolCalling: expected });
    assert.equal(new VscodeLmProvider().supportsTools, expected);
  });

  it('the fake model extension knows whether it can offer its model', async () => {
    const fake = await activateFake();
    assert.equal(fake.available, canRegisterModels);
    if (!canRegisterModels) assert.throws(() => fake.enable(), /has no vscode\.lm\.registerLanguageModelChatProvider/);
  });
});

if (!canRegisterModels) {
  // An editor in which no extension can offer a chat model (as in most forks): Strata finds none,
  // says how to get one, and `auto` falls through to the next provider.
  describe('vscode-lm provider in a VS Code that offers no chat model', () => {
    const provider = new VscodeLmProvider();

    it('vscode.lm lists no model and editorModels() is empty', async () => {
      assert.deepEqual(await vscode.lm.selectChatModels(), []);
      assert.deepEqual(await editorModels(), []);
    });

    it('a request to an editor model ends with unknown-model and says how to pick another', async () => {
      const outcome = await drive(provider.stream(request([msg('user', 'hello')], 'strata-fake-echo')));
      const error = assertProviderError(outcome.error, 'unknown-model');
      assert.equal(error.message, 'The editor does not offer the model "strata-fake-echo". Pick another one with "Strata: Select Model".');
      assert.equal(outcome.events.length, 0);
    });

    it('auto finds no model, says how to choose one, and contacts no local server', async () => {
      const port = await watchOllamaPort();
      try {
        const resolved = await resolveAuto();
        assert.equal(resolved.provider, undefined);
        assert.equal(resolved.view.provider, 'none');
        assert.match(
          resolved.problem?.message ?? '',
          /^No model is available: the editor offers no chat model\. Choose one with "Strata: Select Model"/,
        );
        assert.equal(port.connections(), 0, 'auto opened a connection to 127.0.0.1:11434');
      } finally {
        await port.close();
      }
    });
  });
}

if (canRegisterModels)
  describe('vscode-lm provider with a fake editor model', () => {
    let fake: FakeLm;
    let modelId: string;
    const provider = new VscodeLmProvider();

    before(async () => {
      fake = await activateFake();
      assert.equal(fake.enabled, false, 'the fake model is offered only while this suite runs');
      assert.deepEqual(await vscode.lm.selectChatModels({ vendor: fake.vendor }), [], 'no fake model before enable()');
      fake.enable();
      modelId = fake.model.id;
    });

    after(() => {
      fake?.disable();
    });

    beforeEach(() => fake.reset());

    it('vscode.lm.selectChatModels finds the fake model (by vendor, by id, and unfiltered)', async () => {
      const byVendor = await waitFor('the fake model appearing in vscode.lm', async () => {
        const models = await vscode.lm.selectChatModels({ vendor: fake.vendor });
        return models.length > 0 ? models : undefined;
      });
      assert.equal(byVendor.length, 1);
      const [model] = byVendor;
      assert.equal(model.id, fake.model.id);
      assert.equal(model.name, fake.model.name);
      assert.equal(model.vendor, fake.vendor);
      assert.equal(model.family, fake.model.family);
      assert.equal(model.version, fake.model.version);
      assert.equal(model.maxInputTokens, fake.model.maxInputTokens);
      assert.deepEqual(
        (await vscode.lm.selectChatModels({ id: modelId })).map((m) => m.id),
        [modelId],
      );
      assert.ok(
        (await vscode.lm.selectChatModels()).some((m) => m.id === modelId),
        'unfiltered selectChatModels() lists the fake model',
      );
      assert.equal(await model.countTokens('12345678'), 2, 'countTokens reaches the fake provideTokenCount');
      assert.ok(
        (await editorModels()).some((m) => m.id === modelId && m.vendor === fake.vendor),
        'editorModels() lists it',
      );
      assert.ok((await provider.listModels()).includes(modelId), 'VscodeLmProvider.listModels() lists it');
    });

    it('streams the reply in order: text events with seq 0..n-1 as they arrive, then done', async () => {
      const messages = [
        msg('system', 'You are Strata. Be brief.'),
        msg('user', 'Hello there, fake model'),
        msg('assistant', 'Hi!'),
        msg('user', 'Echo what you got'),
      ];
      const outcome = await drive(provider.stream(request(messages, modelId)));
      assert.equal(outcome.error, undefined, `stream failed: ${String(outcome.error)}`);
      const received = lastRequest(fake).messages;
      const echo = expectedEcho(received);

      const textEvents = texts(outcome);
      assert.ok(textEvents.length >= 3, `expected the reply in several parts, got ${textEvents.length}: ${JSON.stringify(textEvents)}`);
      assert.deepEqual(
        textEvents.map((e) => e.seq),
        textEvents.map((_, i) => i),
        'seq counts from 0 with no gaps',
      );
      assert.equal(textEvents.map((e) => e.text).join(''), echo, 'the parts, in order, are the fake reply');

      const last = outcome.events[outcome.events.length - 1].event;
      assert.equal(last.type, 'done', 'done is the last event');
      assert.equal(outcome.events.filter((t) => t.event.type === 'done').length, 1);
      assert.ok(last.type === 'done');
      assert.equal(last.text, echo);
      assert.equal(last.attempts, 1);
      assert.equal(last.usage, undefined, 'the Language Model API reports no usage');
      assert.equal(
        outcome.events.some((t) => t.event.type === 'usage'),
        false,
      );
      // Streamed, not buffered: the fake reports its parts 40 ms apart.
      const spread = outcome.events[outcome.events.length - 1].at - outcome.events[0].at;
      assert.ok(spread >= 80, `the first part should arrive well before done (spread ${spread.toFixed(0)} ms)`);
      assert.equal(lastRequest(fake).outcome, 'completed');
    });

    it('sends the system content as a leading user message', async () => {
      const system = msg('system', 'SYSTEM-PROMPT: you are Strata. ', 'Second system block.');
      const messages = [system, msg('user', 'first question'), msg('assistant', 'first answer'), msg('user', 'second question')];
      const outcome = await drive(provider.stream(request(messages, modelId)));
      assert.equal(outcome.error, undefined, `stream failed: ${String(outcome.error)}`);
      const done = outcome.events[outcome.events.length - 1].event;
      assert.ok(done.type === 'done');

      // From the echo alone: four messages, roles user, user, assistant, user; the first one is the system text.
      const lines = done.text.trimEnd().split('\n');
      assert.equal(lines[0], 'messages=4');
      assert.deepEqual(
        lines.slice(1, 5).map((l) => l.split(' ').slice(0, 2).join(' ')),
        ['#0 user', '#1 user', '#2 assistant', '#3 user'],
      );
      assert.equal(lines[1], `#0 user ${JSON.stringify('SYSTEM-PROMPT: you are Strata. '.slice(0, 24))}`);
      assert.equal(lines[2], `#1 user ${JSON.stringify('first question')}`);
      assert.equal(lines[5], 'end');

      // And from what the provider received in full: the system blocks joined, no system role.
      const received = lastRequest(fake).messages;
      assert.deepEqual(
        received.map((m) => m.role),
        ['user', 'user', 'assistant', 'user'],
      );
      assert.equal(received[0].text, 'SYSTEM-PROMPT: you are Strata. Second system block.');
      assert.deepEqual(
        received.slice(1).map((m) => m.text),
        ['first question', 'first answer', 'second question'],
      );
    });

    it(`stops the stream within ${CANCEL_BOUND_MS} ms when the AbortSignal fires, and the model sees the cancellation`, async () => {
      const ctrl = new AbortController();
      let abortedAt: number | undefined;
      const outcome = await drive(
        provider.stream(request([msg('system', 'sys'), msg('user', 'SLOW please')], modelId, ctrl.signal)),
        (event, index) => {
          if (event.type === 'text' && index === 2) {
            abortedAt = performance.now();
            ctrl.abort();
          }
        },
      );
      assert.ok(
        abortedAt !== undefined,
        `the slow reply never reached 3 parts (${outcome.events.length} events, error ${String(outcome.error)})`,
      );
      assertProviderError(outcome.error, 'aborted');
      assert.equal(
        outcome.events.some((t) => t.event.type === 'done'),
        false,
        'no done after a cancel: no half-recorded turn',
      );
      const streamLatency = outcome.endedAt - abortedAt;

      const record = lastRequest(fake);
      await waitFor('the fake model ending its response', () => (record.endedAt !== undefined ? true : undefined), 3000);
      assert.ok(record.cancelledAt !== undefined, 'the fake model saw its CancellationToken fire');
      const tokenLatency = record.cancelledAt - abortedAt;
      const stopLatency = (record.endedAt ?? Infinity) - abortedAt;
      console.log(
        `      cancel latency: stream ended ${streamLatency.toFixed(1)} ms after abort(); the fake model's token fired after ${tokenLatency.toFixed(1)} ms, ` +
          `it stopped after ${stopLatency.toFixed(1)} ms (${record.partsReported} parts reported, ${record.partsAfterCancel} after the cancel)`,
      );
      assert.ok(streamLatency < CANCEL_BOUND_MS, `stream ended ${streamLatency.toFixed(1)} ms after abort()`);
      assert.ok(tokenLatency < CANCEL_BOUND_MS, `the model's token fired ${tokenLatency.toFixed(1)} ms after abort()`);
      assert.ok(stopLatency < CANCEL_BOUND_MS, `the model stopped ${stopLatency.toFixed(1)} ms after abort()`);
      assert.equal(record.outcome, 'cancelled');
      assert.equal(record.partsAfterCancel, 0);
      assert.ok(record.partsReported < 50, `the slow model kept going: ${record.partsReported} parts`);
    });

    it('tools through the Language Model API: a streamed tool call part comes back as a call; the result goes back as a tool result part', async () => {
      const user = msg('user', 'TOOL read_file src/a.ts');
      const first = await drive(
        provider.stream({ ...request([msg('system', 'You are Strata.'), user], modelId), tools: TOOL_DEFINITIONS }),
      );
      assert.equal(first.error, undefined, `stream failed: ${String(first.error)}`);
      assert.deepEqual(
        lastRequest(fake).tools,
        TOOL_DEFINITIONS.map((d) => d.name),
        'the tools were offered',
      );
      const events = first.events.map((t) => t.event);
      const call = events.find((e) => e.type === 'toolCall');
      assert.ok(call && call.type === 'toolCall' && call.name === 'read_file', 'a toolCall event while streaming');
      const done = events[events.length - 1];
      assert.ok(done.type === 'done');
      assert.equal(done.text, 'Reading src/a.ts.');
      assert.deepEqual(
        done.toolCalls?.map((c) => ({ name: c.name, args: c.args })),
        [{ name: 'read_file', args: { path: 'src/a.ts' } }],
      );
      const id = done.toolCalls![0].id;

      const result = 'export const a = 1;\n';
      const step2: ChatMessage[] = [
        msg('system', 'You are Strata.'),
        user,
        { role: 'assistant', content: [{ type: 'text', text: 'Reading src/a.ts.' }], toolCalls: done.toolCalls },
        { role: 'tool', toolCallId: id, content: [{ type: 'text', text: result }] },
      ];
      const second = await drive(provider.stream({ ...request(step2, modelId), tools: TOOL_DEFINITIONS }));
      assert.equal(second.error, undefined, `stream failed: ${String(second.error)}`);
      const final = second.events[second.events.length - 1].event;
      assert.ok(final.type === 'done');
      assert.equal(final.text, `Read ${result.length} characters: ${JSON.stringify(result.slice(0, 24))}`);
      assert.equal(final.toolCalls, undefined);
      const received = lastRequest(fake).messages;
      assert.deepEqual(
        received.map((m) => m.role),
        ['user', 'user', 'assistant', 'user'],
        'the tool result travels in a user message',
      );
      assert.deepEqual(received[2].calls, [{ callId: id, name: 'read_file', input: { path: 'src/a.ts' } }]);
      assert.deepEqual(received[3].results, [{ callId: id, text: result }]);
    });

    it('sends nothing when the signal is already aborted', async () => {
      const ctrl = new AbortController();
      ctrl.abort();
      const outcome = await drive(provider.stream(request([msg('user', 'hello')], modelId, ctrl.signal)));
      assertProviderError(outcome.error, 'aborted');
      assert.equal(outcome.events.length, 0);
      assert.equal(fake.requests.length, 0, 'the model received no request');
    });

    it('maps an error thrown by the model to a ProviderError with a clear message', async () => {
      const outcome = await drive(provider.stream(request([msg('system', 'sys'), msg('user', 'please FAIL now')], modelId)));
      const error = assertProviderError(outcome.error, 'server');
      assert.match(error.message, new RegExp(`language model "${modelId}" failed`));
      assert.match(error.message, /failed on purpose \(FAIL requested\)/);
      assert.equal(outcome.events.length, 0, 'no events before the error');
      assert.equal(lastRequest(fake).outcome, 'failed');
    });

    it('an error after output ends the stream with a ProviderError and no done', async () => {
      const outcome = await drive(provider.stream(request([msg('user', 'FAIL_AFTER_OUTPUT')], modelId)));
      const error = assertProviderError(outcome.error, 'server');
      assert.match(error.message, /after output/);
      assert.ok(texts(outcome).length >= 1, 'the parts before the failure were streamed');
      assert.equal(
        outcome.events.some((t) => t.event.type === 'done'),
        false,
      );
    });

    it('maps LanguageModelError.Blocked from the model to rate-limited', async () => {
      const outcome = await drive(provider.stream(request([msg('user', 'BLOCKED')], modelId)));
      const error = assertProviderError(outcome.error, 'rate-limited');
      assert.match(error.message, new RegExp(`"${modelId}"`));
    });

    it('reports unknown-model for a model the editor does not offer', async () => {
      const outcome = await drive(provider.stream(request([msg('user', 'hello')], 'no-such-model')));
      const error = assertProviderError(outcome.error, 'unknown-model');
      assert.match(error.message, /"no-such-model"/);
      assert.equal(fake.requests.length, 0);
    });

    it('auto picks the editor model while one is offered, and contacts no local server', async () => {
      await waitFor('the fake model appearing in vscode.lm', async () => ((await editorModels()).length > 0 ? true : undefined));
      const port = await watchOllamaPort();
      try {
        const resolved = await resolveAuto();
        assert.equal(resolved.view.provider, 'vscode-lm', JSON.stringify(resolved.view));
        // Offline code-server offers no other chat model, so the fake one is the first.
        assert.equal(resolved.view.model, modelId);
        assert.equal(resolved.problem, undefined);

        fake.disable();
        try {
          await waitFor('the fake model leaving vscode.lm', async () =>
            (await vscode.lm.selectChatModels({ vendor: fake.vendor })).length === 0 ? true : undefined,
          );
          const without = await resolveAuto();
          assert.notEqual(without.view.model, modelId, 'still resolved to the withdrawn model');
          if ((await editorModels()).length === 0) assert.equal(without.view.provider, 'none');
        } finally {
          fake.enable();
        }
        assert.equal(port.connections(), 0, 'auto opened a connection to 127.0.0.1:11434');
      } finally {
        await port.close();
      }
    });
  });
