'use strict';
// The local imitation servers (test/support/imitationServers.ts, compiled to out/) as `npm start
// -- --imitate` runs them: one server, a visible streaming pace, and a reply that says what the
// request contained, so a person without an account sees full turns and knows no model answered.
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const compiled = path.join(root, 'out', 'test', 'support', 'imitationServers.js');
const compiledLocal = path.join(root, 'out', 'test', 'support', 'localImitationServers.js');

/** Strata settings per imitated provider: the model ids the imitation lists and accepts. */
const PROVIDERS = {
  openai: { model: 'gpt-4o', models: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1'], label: 'OpenAI-compatible' },
  anthropic: { model: 'claude-sonnet-4-5', models: ['claude-sonnet-4-5', 'claude-haiku-4-5'], label: 'Anthropic' },
  // Local servers: small windows, as on a laptop, so the meter and the budget show the server's figure.
  ollama: { model: 'qwen2.5-coder:7b', models: ['qwen2.5-coder:7b', 'llama3.2:latest'], label: 'Ollama' },
  vllm: { model: 'Qwen/Qwen2.5-Coder-7B-Instruct', models: ['Qwen/Qwen2.5-Coder-7B-Instruct'], label: 'vLLM' },
  llamacpp: {
    model: 'qwen2.5-coder-7b-instruct-q4_k_m.gguf',
    models: ['qwen2.5-coder-7b-instruct-q4_k_m.gguf'],
    label: 'llama.cpp server',
  },
  lmstudio: { model: 'qwen2.5-7b-instruct', models: ['qwen2.5-7b-instruct'], label: 'LM Studio' },
};

/** Starts the imitation of `kind` (a key of PROVIDERS) with the demo's reply. */
async function startServer(kind, common) {
  const cloud = require(compiled);
  const local = require(compiledLocal);
  const models = PROVIDERS[kind].models;
  switch (kind) {
    case 'openai':
      return cloud.startOpenAIImitation({ ...common, models });
    case 'anthropic':
      return cloud.startAnthropicImitation({ ...common, models });
    case 'ollama':
      return local.startOllamaImitation({
        ...common,
        ollamaModels: [
          { name: models[0], contextLength: 32768, arch: 'qwen2' },
          { name: models[1], contextLength: 131072 },
        ],
      });
    case 'vllm':
      return local.startVllmImitation([{ id: models[0], maxModelLen: 8192 }], common);
    case 'llamacpp':
      return local.startLlamaCppImitation(models[0], 4096, common);
    default:
      return local.startLmStudioImitation([{ id: models[0], maxContextLength: 32768, loadedContextLength: 8192 }], common);
  }
}

function lastUserText(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const blocks = messages[i].content.filter((b) => b.text.trim() !== '');
    if (blocks.length > 0) return blocks[blocks.length - 1].text.trim();
  }
  return '';
}

/** A workspace-relative file path the text names (`src/tax.ts`, `README.md`), if any. */
function namedPath(text) {
  const m =
    /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w-][\w.-]*\.(?:ts|tsx|js|jsx|mjs|cjs|json|md|py|go|rs|java|c|h|cpp|cs|rb|php|css|html|yml|yaml|toml|txt))(?=$|[\s`'"),.:;?!])/.exec(
      text,
    );
  return m ? m[1] : undefined;
}

/** The tool calls made since the last user message, with how each ended (the tool message's text). */
function toolsThisTurn(messages) {
  const calls = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role !== 'user'; i--) {
    const m = messages[i];
    if (m.role === 'assistant' && m.toolCalls) calls.unshift(...m.toolCalls);
  }
  return calls;
}

/**
 * The demo's model: when tools are offered and the message names a file, it first reads that file
 * with `read_file` (so a person sees the tool loop: the step in the panel, the file under L3), then
 * answers with what the request contained.
 */
function describeRequest({ model, messages, tools, promptTokens, cachedTokens }) {
  const last = messages[messages.length - 1];
  if (last && last.role === 'user' && (tools || []).includes('read_file')) {
    const file = namedPath(lastUserText(messages));
    if (file) return { text: `Reading \`${file}\` first.`, toolCalls: [{ name: 'read_file', args: { path: file } }] };
  }
  const reads = toolsThisTurn(messages);
  const asked = lastUserText(messages).replace(/\s+/g, ' ');
  const quoted = asked.length > 160 ? `${asked.slice(0, 157)}…` : asked;
  const share = promptTokens > 0 ? Math.round((100 * cachedTokens) / promptTokens) : 0;
  return [
    `This reply comes from Strata's **local imitation server**: no model read your request, and nothing left this machine (\`${model}\` is only a name here).`,
    '',
    `- Your request had ${messages.length} messages and ${promptTokens.toLocaleString('en-US')} prompt tokens.`,
    `- The simulated prompt cache served ${cachedTokens.toLocaleString('en-US')} of them (${share}%).`,
    quoted ? `- Your message ended with: “${quoted}”` : '- Your message was empty.',
    ...(reads.length > 0
      ? [
          `- Before answering it called ${reads.map((c) => `\`${c.name} ${JSON.stringify(c.args)}\``).join(', ')}; the results are in the request once, as blocks of the envelope.`,
        ]
      : []),
    '',
    'Ask again, attach a file or a selection, or name a file (such as `src/tax.ts`) to see the model read it with a tool, and watch the context meter: each request is the previous one plus the new turn, so the cached share grows.',
  ].join('\n');
}

/**
 * Starts the imitation server for `kind` (openai, anthropic, ollama, vllm, llamacpp, lmstudio) on 127.0.0.1 (any free port).
 * @returns {Promise<{ kind: string, server: any, baseUrl: string, settings: Record<string, string>, close: () => Promise<void> }>}
 */
async function startImitation(kind, { chunkDelayMs = 35 } = {}) {
  const provider = PROVIDERS[kind];
  if (!provider) throw new Error(`--imitate=${kind}: choose ${Object.keys(PROVIDERS).join(', ')}`);
  const server = await startServer(kind, { chunkDelayMs, deltaChars: 4, replyFor: describeRequest });
  // A local server's setting is its root; the cloud providers' is their API's base URL.
  const baseUrl = kind === 'openai' || kind === 'anthropic' ? server.url : server.origin;
  return {
    kind,
    server,
    label: provider.label,
    baseUrl,
    settings: { 'strata.provider': kind, 'strata.baseUrl': baseUrl, 'strata.model': provider.model },
    close: () => server.close(),
  };
}

module.exports = { startImitation, describeRequest, namedPath, PROVIDERS };
