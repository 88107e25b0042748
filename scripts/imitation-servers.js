#!/usr/bin/env node
/*
 * npm run imitate [-- options]
 *
 * Starts the OpenAI chat-completions and Anthropic messages imitation servers (test/support) on
 * 127.0.0.1 for manual use of the extension without an account or network, with the local servers'
 * imitations (Ollama, vLLM, llama.cpp, LM Studio: their model lists, windows and cuts), prints
 * their addresses, and stops cleanly on Ctrl-C.
 *
 * Options:
 *   --openai-port N      (default 0: any free port)
 *   --anthropic-port N   (default 0)
 *   --ollama-port N, --vllm-port N, --llamacpp-port N, --lmstudio-port N   (default 0; the usual
 *                        ports 11434, 8000, 8080, 1234 make "Local server…" in the model picker find them)
 *   --reply TEXT         the reply every request gets (default: a short canned reply)
 *   --delay MS           pause between streamed deltas (default 30, so streaming is visible)
 *   --encoding E         o200k_base (default) | cl100k_base, for the usage numbers
 *   --api-key KEY        require this key (default: any key is accepted)
 */
'use strict';
const path = require('path');
const fs = require('fs');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const compiled = path.join(root, 'out', 'test', 'support', 'imitationServers.js');
const sources = [
  'test/support/imitationServers.ts',
  'test/support/localImitationServers.ts',
  'src/services/cacheModel.ts',
  'src/services/tokenizer/guardedTokenizer.ts',
  'src/services/tokenizer/longRunGuard.ts',
  'src/services/tokenizer/chunking.ts',
  'src/services/tokenizer/encodings.ts',
].map((p) => path.join(root, p));

function stale() {
  if (!fs.existsSync(compiled)) return true;
  const built = fs.statSync(compiled).mtimeMs;
  return sources.some((s) => fs.existsSync(s) && fs.statSync(s).mtimeMs > built);
}

if (stale()) {
  process.stderr.write('Compiling (tsc -p tsconfig.json)…\n');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  if (!fs.existsSync(compiled)) {
    process.stderr.write(`Could not build ${path.relative(root, compiled)} (tsc exit code ${r.status}).\n`);
    process.exit(1);
  }
}

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) {
    process.stderr.write(`--${name} needs a value\n`);
    process.exit(2);
  }
  return v;
}

function port(name) {
  const v = Number(arg(name, '0'));
  if (!Number.isInteger(v) || v < 0 || v > 65535) {
    process.stderr.write(`--${name}: not a port number\n`);
    process.exit(2);
  }
  return v;
}

async function main() {
  const { startOpenAIImitation, startAnthropicImitation } = require(compiled);
  const encoding = arg('encoding', 'o200k_base');
  if (encoding !== 'o200k_base' && encoding !== 'cl100k_base') {
    process.stderr.write('--encoding must be o200k_base or cl100k_base\n');
    process.exit(2);
  }
  const common = {
    encoding,
    defaultReply: arg('reply', undefined),
    chunkDelayMs: Number(arg('delay', '30')),
    apiKey: arg('api-key', undefined),
  };
  const openai = await startOpenAIImitation({ ...common, port: port('openai-port') });
  const anthropic = await startAnthropicImitation({ ...common, port: port('anthropic-port') });
  const local = require(path.join(root, 'out', 'test', 'support', 'localImitationServers.js'));
  const ollama = await local.startOllamaImitation({
    ...common,
    port: port('ollama-port'),
    ollamaModels: [
      { name: 'qwen2.5-coder:7b', contextLength: 32768, arch: 'qwen2' },
      { name: 'llama3.2:latest', contextLength: 131072 },
    ],
  });
  const vllm = await local.startVllmImitation([{ id: 'Qwen/Qwen2.5-Coder-7B-Instruct', maxModelLen: 8192 }], {
    ...common,
    port: port('vllm-port'),
  });
  const llamacpp = await local.startLlamaCppImitation('qwen2.5-coder-7b-instruct-q4_k_m.gguf', 4096, {
    ...common,
    port: port('llamacpp-port'),
  });
  const lmstudio = await local.startLmStudioImitation([{ id: 'qwen2.5-7b-instruct', maxContextLength: 32768, loadedContextLength: 8192 }], {
    ...common,
    port: port('lmstudio-port'),
  });
  const locals = [ollama, vllm, llamacpp, lmstudio];
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.all([openai.close(), anthropic.close(), ...locals.map((l) => l.close())]);
    process.stdout.write(
      `Stopped (${openai.chatRequests.length} OpenAI and ${anthropic.chatRequests.length} Anthropic requests served).\n`,
    );
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(
    [
      'Strata imitation servers (127.0.0.1 only; usage follows the cache rules of docs/design.md#replay):',
      `  OpenAI-compatible base URL: ${openai.url}`,
      `  Anthropic base URL:         ${anthropic.url}`,
      `  Ollama (native and /v1):    ${ollama.origin}   (4,096-token default window; cuts longer prompts silently)`,
      `  vLLM:                       ${vllm.origin}   (max_model_len 8,192)`,
      `  llama.cpp server:           ${llamacpp.origin}   (n_ctx 4,096)`,
      `  LM Studio:                  ${lmstudio.origin}   (loaded with 8,192)`,
      'Set "strata.provider" and "strata.baseUrl" to one of them (any API key works unless --api-key is given),',
      'or choose "OpenAI-compatible endpoint…" in "Strata: Select Model" and give it the address.',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((e) => {
  process.stderr.write(`${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
