/**
 * Local and compatible servers over real HTTP to their imitations on 127.0.0.1: each server's model
 * list and window, Ollama's `num_ctx` sent from the plan (and its silent cut without it), vLLM's
 * and llama.cpp's refusals mapped to context-length errors, and the prompt tokens each reports.
 */
import * as assert from 'node:assert/strict';
import type { ChatMessage } from '../../../../src/engine/types';
import { requestTokens } from '../../../../src/services/cacheModel';
import { modelInfo } from '../../../../src/services/modelInfo';
import {
  ProviderError,
  collectReply,
  createProvider,
  listProviderModels,
  llamaCppModels,
  lmStudioModels,
  ollamaContextLength,
  ollamaModels,
  serverRoot,
  vllmModels,
  type ChatRequest,
} from '../../../../src/services/providers';
import {
  startLlamaCppImitation,
  startLmStudioImitation,
  startOllamaImitation,
  startVllmImitation,
} from '../../../support/localImitationServers';
import { installNetworkGuard, type NetworkGuard } from '../../../support/networkGuard';
import { projectTokenizer } from '../../../support/tokenizers';

const tokenizer = projectTokenizer('o200k_base');

/** A user message of about `words` words (each " word" is one o200k token), and its exact count as sent. */
function longRequest(model: string, words: number, maxOutputTokens = 256): { req: ChatRequest; tokens: number } {
  const messages: ChatMessage[] = [
    { role: 'system', content: [{ type: 'text', text: 'You are a careful assistant.' }] },
    { role: 'user', content: [{ type: 'text', text: `Summarize:${' word'.repeat(words)}` }] },
  ];
  return { req: { messages, model, conversationId: 'c1', maxOutputTokens }, tokens: requestTokens(messages, tokenizer).tokens.length };
}

describe('local servers: model lists and windows from the server', () => {
  let guard: NetworkGuard;
  beforeEach(() => {
    guard = installNetworkGuard(['127.0.0.1']);
  });
  afterEach(() => {
    guard.uninstall();
    assert.deepEqual(guard.foreign, [], `foreign network attempts: ${guard.foreign.join(', ')}`);
  });

  it('serverRoot drops trailing slashes and /v1', () => {
    assert.equal(serverRoot('http://127.0.0.1:11434/v1/'), 'http://127.0.0.1:11434');
    assert.equal(serverRoot(' http://127.0.0.1:8000// '), 'http://127.0.0.1:8000');
  });

  it("Ollama: /api/tags, each model's context_length from /api/show within the cap, loaded models from /api/ps", async () => {
    const server = await startOllamaImitation({
      ollamaModels: [
        { name: 'qwen2.5-coder:7b', contextLength: 32768, arch: 'qwen2' },
        { name: 'llama3.2:latest', contextLength: 131072 },
        { name: 'tinyllama:latest', contextLength: 2048 },
      ],
    });
    try {
      const models = await ollamaModels({ root: `${server.root}/v1` }, 16384);
      assert.deepEqual(models, [
        { id: 'llama3.2:latest', facts: { contextWindow: 16384, source: 'server' }, detail: '16,384-token window, model allows 131,072' },
        { id: 'qwen2.5-coder:7b', facts: { contextWindow: 16384, source: 'server' }, detail: '16,384-token window, model allows 32,768' },
        { id: 'tinyllama:latest', facts: { contextWindow: 2048, source: 'server' }, detail: '2,048-token window' },
      ]);
      assert.deepEqual(
        server.requests.map((r) => `${r.method} ${r.path}`),
        ['GET /api/tags', 'GET /api/ps', 'POST /api/show', 'POST /api/show', 'POST /api/show'],
      );
      // A chat loads the model with the num_ctx it sent: /api/ps says so.
      await collectReply(
        createProvider('ollama', { baseUrl: server.root, contextWindow: 16384 }).stream(longRequest('llama3.2:latest', 10).req),
      );
      const again = await ollamaModels({ root: server.root }, 16384);
      assert.equal(again[0].detail, '16,384-token window, model allows 131,072, loaded with 16,384');
    } finally {
      await server.close();
    }
  });

  it('ollamaContextLength reads <general.architecture>.context_length, else any *.context_length', () => {
    assert.equal(ollamaContextLength({ model_info: { 'general.architecture': 'gemma3', 'gemma3.context_length': 8192 } }), 8192);
    assert.equal(ollamaContextLength({ model_info: { 'general.architecture': 'x', 'bert.context_length': 512 } }), 512);
    assert.equal(ollamaContextLength({ model_info: {} }), undefined);
    assert.equal(ollamaContextLength('nonsense'), undefined);
  });

  it('vLLM: max_model_len per model from /v1/models', async () => {
    const server = await startVllmImitation([
      { id: 'Qwen/Qwen2.5-Coder-7B-Instruct', maxModelLen: 8192 },
      { id: 'meta-llama/Llama-3.1-8B-Instruct', maxModelLen: 4096 },
    ]);
    try {
      assert.deepEqual(await vllmModels({ root: server.url }), [
        { id: 'Qwen/Qwen2.5-Coder-7B-Instruct', facts: { contextWindow: 8192, source: 'server' }, detail: '8,192-token window' },
        { id: 'meta-llama/Llama-3.1-8B-Instruct', facts: { contextWindow: 4096, source: 'server' }, detail: '4,096-token window' },
      ]);
    } finally {
      await server.close();
    }
  });

  it("llama.cpp: the slot's n_ctx from /props for the model /v1/models lists", async () => {
    const server = await startLlamaCppImitation('coder.gguf', 4096);
    try {
      assert.deepEqual(await llamaCppModels({ root: server.origin }), [
        { id: 'coder.gguf', facts: { contextWindow: 4096, source: 'server' }, detail: '4,096-token window' },
      ]);
    } finally {
      await server.close();
    }
  });

  it("LM Studio: a loaded model's context, a model not loaded at the context it loads with", async () => {
    const server = await startLmStudioImitation([
      { id: 'qwen2.5-7b-instruct', maxContextLength: 32768, loadedContextLength: 8192 },
      { id: 'phi-4', maxContextLength: 16384 },
    ]);
    try {
      assert.deepEqual(await lmStudioModels({ root: server.origin }), [
        { id: 'phi-4', facts: { contextWindow: 4096, source: 'server' }, detail: 'not loaded: 4,096 assumed (model allows 16,384)' },
        { id: 'qwen2.5-7b-instruct', facts: { contextWindow: 8192, source: 'server' }, detail: '8,192-token window, loaded' },
      ]);
    } finally {
      await server.close();
    }
  });

  it("a server's figures make the model's window, marked as from the server", async () => {
    const server = await startVllmImitation([{ id: 'gpt-4o', maxModelLen: 8192 }]);
    try {
      const [m] = await listProviderModels('vllm', { baseUrl: server.origin, numCtxCap: 32768 });
      const info = modelInfo('vllm', m.id, m.facts);
      // Strata's table says 128,000 for gpt-4o: the server's 8,192 wins.
      assert.equal(info.contextWindow, 8192);
      assert.equal(info.windowSource, 'server');
      assert.equal(modelInfo('openai', 'gpt-4o').windowSource, 'table');
      assert.equal(modelInfo('ollama', 'mystery').windowSource, 'assumed');
    } finally {
      await server.close();
    }
  });

  it('a server that does not answer is an error, not an empty list', async () => {
    await assert.rejects(ollamaModels({ root: 'http://127.0.0.1:9' }, 8192));
  });
});

describe('local servers: requests within the window the server runs', () => {
  let guard: NetworkGuard;
  beforeEach(() => {
    guard = installNetworkGuard(['127.0.0.1']);
  });
  afterEach(() => {
    guard.uninstall();
    assert.deepEqual(guard.foreign, [], `foreign network attempts: ${guard.foreign.join(', ')}`);
  });

  it('Ollama native: num_ctx is the planned window, nothing is cut, and usage is the prompt the server ran', async () => {
    const server = await startOllamaImitation({ defaultReply: 'Ollama says hi.' });
    try {
      const { req, tokens } = longRequest('llama3.2:latest', 6000, 300);
      const reply = await collectReply(createProvider('ollama', { baseUrl: server.root, contextWindow: 16384 }).stream(req));
      const [rec] = server.chatRequests;
      assert.equal(rec.path, '/api/chat');
      assert.equal(rec.numCtx, 16384);
      assert.deepEqual((rec.body as { options?: unknown }).options, { num_ctx: 16384, num_predict: 300 });
      assert.equal(rec.cut, undefined);
      assert.equal(reply.text, 'Ollama says hi.');
      assert.deepEqual(reply.usage, { input: tokens, cacheRead: 0, cacheWrite: 0, output: tokenizer.count('Ollama says hi.') });
    } finally {
      await server.close();
    }
  });

  it('Ollama cuts silently from the front past num_ctx and reports the cut count: natively and on /v1 at its default', async () => {
    const server = await startOllamaImitation({ defaultNumCtx: 8192 });
    try {
      const { req, tokens } = longRequest('llama3.2:latest', 10000);
      assert.equal(tokens > 8192, true, `${tokens} tokens sent`);
      const native = await collectReply(createProvider('ollama', { baseUrl: server.root, contextWindow: 4096 }).stream(req));
      assert.deepEqual(server.chatRequests[0].cut, { sent: tokens, kept: 4096 });
      assert.equal(native.usage?.input, 4096, 'prompt_eval_count is the cut prompt');
      // The OpenAI-compatible /v1 takes no num_ctx: the server's configured 8,192 applies.
      const compat = createProvider('openai', { baseUrl: `${server.root}/v1`, apiKey: undefined });
      const viaV1 = await collectReply(compat.stream(req));
      assert.deepEqual(server.chatRequests[1].cut, { sent: tokens, kept: 8192 });
      assert.equal(viaV1.usage?.input, 8192, 'prompt_tokens is the cut prompt');
    } finally {
      await server.close();
    }
  });

  it('vLLM: prompt + max_tokens over max_model_len is its 400, a context-length error; within it, answered', async () => {
    const server = await startVllmImitation([{ id: 'coder', maxModelLen: 8192 }], { defaultReply: 'ok' });
    try {
      const provider = createProvider('vllm', { baseUrl: server.origin });
      assert.equal(provider.label, `vLLM at ${server.origin.replace('http://', '')}`);
      const over = longRequest('coder', 7000, 2000);
      await assert.rejects(collectReply(provider.stream(over.req)), (e: unknown) => ProviderError.is(e, 'context-length'));
      const within = longRequest('coder', 5000, 2000);
      const reply = await collectReply(provider.stream(within.req));
      assert.equal(reply.usage?.input, within.tokens);
      assert.equal((server.chatRequests[1].body as { max_tokens?: number }).max_tokens, 2000);
    } finally {
      await server.close();
    }
  });

  it('llama.cpp: a prompt over n_ctx is its 400, a context-length error', async () => {
    const server = await startLlamaCppImitation('coder.gguf', 4096);
    try {
      const provider = createProvider('llamacpp', { baseUrl: server.origin });
      await assert.rejects(collectReply(provider.stream(longRequest('coder.gguf', 5000).req)), (e: unknown) =>
        ProviderError.is(e, 'context-length'),
      );
    } finally {
      await server.close();
    }
  });

  it('LM Studio: a prompt over the loaded context is refused as a context-length error', async () => {
    const server = await startLmStudioImitation([{ id: 'm', maxContextLength: 32768, loadedContextLength: 2048 }]);
    try {
      const provider = createProvider('lmstudio', { baseUrl: server.origin });
      await assert.rejects(collectReply(provider.stream(longRequest('m', 3000).req)), (e: unknown) =>
        ProviderError.is(e, 'context-length'),
      );
      const ok = longRequest('m', 100);
      assert.equal((await collectReply(provider.stream(ok.req))).usage?.input, ok.tokens);
    } finally {
      await server.close();
    }
  });

  it('the imitations listen on 127.0.0.1 only', async () => {
    await assert.rejects(startOllamaImitation({ host: '0.0.0.0' }), /127\.0\.0\.1 only/);
  });
});
