/**
 * One entry per provider of the catalog (src/common/providerCatalog.ts): how to build its client,
 * how to list its models with what it says about each one's window, and which cache and price
 * rules apply to it. A `Record` over `ProviderName`, so a provider added to the catalog does not
 * compile until it has every part here (docs/design.md#providers).
 *
 * Usage mapping lives in each client (openai.ts, anthropic.ts, ollama.ts): every one reports the
 * prompt tokens the server counted, which the budget compares with what was sent.
 */
import { PROVIDER_CATALOG, type ProviderName } from '../../common/providerCatalog';
import { AnthropicProvider } from './anthropic';
import {
  llamaCppModels,
  lmStudioModels,
  ollamaModels,
  openAiCompatibleModels,
  serverRoot,
  vllmModels,
  type ServerModel,
} from './localServers';
import { OllamaProvider } from './ollama';
import { OPENAI_DEFAULT_BASE_URL, OpenAIProvider } from './openai';
import type { ChatProvider } from './types';

/** What the host knows when it builds a client. */
export interface ProviderSetup {
  apiKey?: string;
  /** `strata.baseUrl` (empty: the provider's default root). */
  baseUrl?: string;
  /** `strata.promptCacheKey`. */
  promptCacheKey?: boolean;
  /** `strata.anthropicCacheTtl`. */
  anthropicCacheTtl?: '5m' | '1h';
  /** The window the budget plans for; Ollama is sent it as `num_ctx`. */
  contextWindow?: number;
}

export interface ModelListing {
  baseUrl?: string;
  apiKey?: string;
  /** The largest window Strata asks Ollama for (`num_ctx`). */
  numCtxCap: number;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
}

export interface ProviderModule {
  create(setup: ProviderSetup): ChatProvider;
  /** The models the provider's endpoint serves, with their windows when it says them. */
  listModels(listing: ModelListing): Promise<ServerModel[]>;
  /**
   * How its prompt cache is predicted and priced (src/services/cacheModel.ts, pricing/): `openai`
   * (automatic 128-token steps), `anthropic` (breakpoints, writes billed), `server` (a local
   * server's KV cache: reused, never billed).
   */
  cacheRules: 'openai' | 'anthropic' | 'server';
  /** The price table has rows for its own endpoint (others are priced only through `strata.prices`). */
  priced: boolean;
}

function root(p: ProviderName, baseUrl: string | undefined): string {
  return serverRoot(baseUrl?.trim() || PROVIDER_CATALOG[p].defaultRoot);
}

/** The base URL an OpenAI-wire client is given for a local server: its root plus `/v1`. */
function v1(p: ProviderName, baseUrl: string | undefined): string {
  return `${root(p, baseUrl)}/v1`;
}

export const PROVIDER_MODULES: Readonly<Record<ProviderName, ProviderModule>> = {
  openai: {
    create: (s) => new OpenAIProvider({ apiKey: s.apiKey, baseURL: s.baseUrl || undefined, promptCacheKey: s.promptCacheKey }),
    listModels: (l) =>
      openAiCompatibleModels({
        root: l.baseUrl?.trim() || OPENAI_DEFAULT_BASE_URL,
        asBaseUrl: true,
        apiKey: l.apiKey,
        signal: l.signal,
        fetchImpl: l.fetchImpl,
      }),
    cacheRules: 'openai',
    priced: true,
  },
  anthropic: {
    create: (s) => new AnthropicProvider({ apiKey: s.apiKey, baseURL: s.baseUrl || undefined, cacheTtl: s.anthropicCacheTtl }),
    // Strata does not ask Anthropic for its list: the catalog's known models are offered.
    listModels: () => Promise.resolve(PROVIDER_CATALOG.anthropic.knownModels.map((id) => ({ id, facts: {}, detail: '' }))),
    cacheRules: 'anthropic',
    priced: true,
  },
  ollama: {
    create: (s) => new OllamaProvider({ baseURL: root('ollama', s.baseUrl), numCtx: s.contextWindow ?? 4096 }),
    listModels: (l) => ollamaModels({ root: root('ollama', l.baseUrl), signal: l.signal, fetchImpl: l.fetchImpl }, l.numCtxCap),
    cacheRules: 'server',
    priced: false,
  },
  lmstudio: {
    create: (s) => new OpenAIProvider({ kind: 'lmstudio', apiKey: s.apiKey, baseURL: v1('lmstudio', s.baseUrl), promptCacheKey: false }),
    listModels: (l) => lmStudioModels({ root: root('lmstudio', l.baseUrl), signal: l.signal, fetchImpl: l.fetchImpl }),
    cacheRules: 'server',
    priced: false,
  },
  llamacpp: {
    create: (s) => new OpenAIProvider({ kind: 'llamacpp', apiKey: s.apiKey, baseURL: v1('llamacpp', s.baseUrl), promptCacheKey: false }),
    listModels: (l) => llamaCppModels({ root: root('llamacpp', l.baseUrl), signal: l.signal, fetchImpl: l.fetchImpl }),
    cacheRules: 'server',
    priced: false,
  },
  vllm: {
    create: (s) => new OpenAIProvider({ kind: 'vllm', apiKey: s.apiKey, baseURL: v1('vllm', s.baseUrl), promptCacheKey: false }),
    listModels: (l) => vllmModels({ root: root('vllm', l.baseUrl), apiKey: l.apiKey, signal: l.signal, fetchImpl: l.fetchImpl }),
    cacheRules: 'server',
    priced: false,
  },
};

/** The client for `provider`, built from the host's settings. */
export function createProvider(provider: ProviderName, setup: ProviderSetup): ChatProvider {
  return PROVIDER_MODULES[provider].create(setup);
}

/** The models `provider`'s endpoint serves. */
export function listProviderModels(provider: ProviderName, listing: ModelListing): Promise<ServerModel[]> {
  return PROVIDER_MODULES[provider].listModels(listing);
}
