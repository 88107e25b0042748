/**
 * The providers Strata can send to, as data every layer may read: the protocol's checks, the
 * panel, the host's settings and key storage, and the services' clients all take their list from
 * here. Adding a provider is one entry in `PROVIDER_CATALOG` and one in the services' registry
 * (src/services/providers/registry.ts); both are `Record`s over `ProviderName`, so the compiler
 * names every place a new entry still lacks (docs/design.md#providers).
 */

/** How a provider's chat requests travel. */
export type ProviderWire = 'openai' | 'anthropic' | 'ollama';

export interface ProviderEntry {
  /** What the user reads ("OpenAI", "Ollama"). */
  readonly name: string;
  /** The client library's wire format. */
  readonly wire: ProviderWire;
  /** It needs an API key (stored in the editor's secret storage, or this environment variable). */
  readonly key?: { readonly env: string };
  /** Where requests go when no base URL is set: a public API, or the server's usual loopback address. */
  readonly defaultRoot: string;
  /** A server on this machine that Strata lists models from and learns each model's window from. */
  readonly localServer: boolean;
  /** The model chosen when none is set (empty: the server's first model). */
  readonly defaultModel: string;
  /** Models offered in the picker when the provider is not asked for its list. */
  readonly knownModels: readonly string[];
}

export const PROVIDER_CATALOG = {
  openai: {
    name: 'OpenAI',
    wire: 'openai',
    key: { env: 'OPENAI_API_KEY' },
    defaultRoot: 'https://api.openai.com',
    localServer: false,
    defaultModel: 'gpt-4o',
    knownModels: ['gpt-4o', 'gpt-4.1', 'gpt-5', 'o4-mini'],
  },
  anthropic: {
    name: 'Anthropic',
    wire: 'anthropic',
    key: { env: 'ANTHROPIC_API_KEY' },
    defaultRoot: 'https://api.anthropic.com',
    localServer: false,
    defaultModel: 'claude-sonnet-4-5',
    knownModels: ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5', 'claude-3-7-sonnet-latest', 'claude-3-5-haiku-latest'],
  },
  ollama: {
    name: 'Ollama',
    wire: 'ollama',
    defaultRoot: 'http://127.0.0.1:11434',
    localServer: true,
    defaultModel: '',
    knownModels: [],
  },
  lmstudio: {
    name: 'LM Studio',
    wire: 'openai',
    defaultRoot: 'http://127.0.0.1:1234',
    localServer: true,
    defaultModel: '',
    knownModels: [],
  },
  llamacpp: {
    name: 'llama.cpp server',
    wire: 'openai',
    defaultRoot: 'http://127.0.0.1:8080',
    localServer: true,
    defaultModel: '',
    knownModels: [],
  },
  vllm: {
    name: 'vLLM',
    wire: 'openai',
    defaultRoot: 'http://127.0.0.1:8000',
    localServer: true,
    defaultModel: '',
    knownModels: [],
  },
} as const satisfies Record<string, ProviderEntry>;

/** A provider Strata sends to through its own client (not the editor's models). */
export type ProviderName = keyof typeof PROVIDER_CATALOG;

/** Every provider, in the order the picker and the settings list them. */
export const PROVIDER_NAMES = Object.keys(PROVIDER_CATALOG) as ProviderName[];

/** The providers that need an API key. */
export type KeyedProvider = { [K in ProviderName]: (typeof PROVIDER_CATALOG)[K] extends { key: object } ? K : never }[ProviderName];
export const KEYED_PROVIDERS = PROVIDER_NAMES.filter((p): p is KeyedProvider => 'key' in PROVIDER_CATALOG[p]);

/** The servers on this machine that Strata learns models and windows from. */
export type LocalServerProvider = {
  [K in ProviderName]: (typeof PROVIDER_CATALOG)[K]['localServer'] extends true ? K : never;
}[ProviderName];
export const LOCAL_SERVER_PROVIDERS = PROVIDER_NAMES.filter((p): p is LocalServerProvider => PROVIDER_CATALOG[p].localServer);

/** The providers whose requests travel in OpenAI's chat-completions format (one client serves them all). */
export type OpenAIWireProvider = { [K in ProviderName]: (typeof PROVIDER_CATALOG)[K]['wire'] extends 'openai' ? K : never }[ProviderName];

/** What the `strata.provider` setting accepts: the editor's models, `auto`, and every provider. */
export const PROVIDER_SETTINGS = ['auto', 'vscode-lm', ...PROVIDER_NAMES] as const;
export type ProviderSetting = 'auto' | 'vscode-lm' | ProviderName;

export function isProviderName(v: unknown): v is ProviderName {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(PROVIDER_CATALOG, v);
}

export function isKeyedProvider(v: unknown): v is KeyedProvider {
  return isProviderName(v) && 'key' in PROVIDER_CATALOG[v];
}
