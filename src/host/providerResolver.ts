/**
 * Turns the `strata.*` provider settings, the stored API keys and the editor's language models
 * into the provider a turn is sent with. LangChain (and so the OpenAI / Anthropic clients) is loaded
 * on the first send, never at activation.
 *
 * Keys: SecretStorage (`Strata: Set API Key`), else `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` in the
 * environment. A base URL on the loopback (127.0.0.1, localhost, [::1]) needs no key. Keys are never
 * written to settings, logs or exports.
 */
import * as vscode from 'vscode';
import type { ModelOption, ModelView, ProviderId } from '../protocol/messages';
import type { ChatProvider } from '../services/providers/types';
import { DEFAULT_MODELS, KNOWN_ANTHROPIC_MODELS, modelInfo, type ModelInfo } from '../services/modelInfo';
import { readSetting, settingInForce, userSetting, writeSetting } from './config';
import { ollamaName, originToConfirm } from './endpointOrigin';
import type { EndpointQuestion, EndpointTrust } from './endpointTrust';
import { editorLmFeatures, editorModels, VscodeLmProvider } from './vscodeLmProvider';
import { editorModelLabel } from './lmCompat';

export type KeyedProvider = 'openai' | 'anthropic';
export const KEYED_PROVIDERS: readonly KeyedProvider[] = ['openai', 'anthropic'];
const ENV_KEYS: Record<KeyedProvider, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };
const SECRET_KEYS: Record<KeyedProvider, string> = { openai: 'strata-api-key:openai', anthropic: 'strata-api-key:anthropic' };
const PROVIDER_NAMES: Record<KeyedProvider | 'vscode-lm', string> = { openai: 'OpenAI', anthropic: 'Anthropic', 'vscode-lm': 'VS Code' };

/** What a send uses: a provider (or none, with the reason), the model and its limits, and how the panel shows it. */
export interface ResolvedProvider {
  provider: ChatProvider | undefined;
  info: ModelInfo;
  view: ModelView;
  /** Why nothing can be sent (no provider configured, no key), with the action that fixes it. */
  problem?: { message: string; action: 'setApiKey' | 'openSettings' | 'selectModel' };
}

export function isLoopbackUrl(url: string): boolean {
  try {
    const h = new URL(url).hostname;
    return h === '127.0.0.1' || h === 'localhost' || h === '[::1]' || h === '::1';
  } catch {
    return false;
  }
}

type ProvidersModule = typeof import(/* webpackChunkName: "providers" */ '../services/providers/index.js');
let providersModule: Promise<ProvidersModule> | undefined;

/** Loads LangChain and the provider clients on first use (a few hundred ms; never at activation). */
export function loadProviders(): Promise<ProvidersModule> {
  providersModule ??= import(/* webpackChunkName: "providers" */ '../services/providers/index.js');
  return providersModule;
}

export class ProviderResolver {
  /** base URL → whether it is one of Strata's local imitation servers. */
  private readonly imitation = new Map<string, Promise<boolean>>();

  /** The workspace-chosen endpoint the last resolve found unconfirmed (asked about on the next send). */
  private pending: EndpointQuestion | undefined;
  /** Wraps each provider resolved for sending (keep-warm watches the requests that complete). */
  watch: ((provider: ChatProvider, label: string) => ChatProvider) | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    readonly endpoints: EndpointTrust,
  ) {}

  async apiKey(provider: KeyedProvider): Promise<string | undefined> {
    const stored = await this.secrets.get(SECRET_KEYS[provider]);
    if (stored) return stored;
    const env = process.env[ENV_KEYS[provider]];
    return env && env.trim().length > 0 ? env.trim() : undefined;
  }

  async setApiKey(provider: KeyedProvider, key: string | undefined): Promise<void> {
    if (key) await this.secrets.store(SECRET_KEYS[provider], key);
    else await this.secrets.delete(SECRET_KEYS[provider]);
  }

  /** Every key Strata knows, so exports and logs can be checked for them. */
  async knownSecrets(): Promise<string[]> {
    const keys = await Promise.all(KEYED_PROVIDERS.map((p) => this.apiKey(p)));
    return keys.filter((k): k is string => !!k && k.length >= 8);
  }

  /** Whether `baseUrl` (on the loopback) is Strata's imitation server: it says so on GET /models. */
  isImitation(baseUrl: string): Promise<boolean> {
    if (!isLoopbackUrl(baseUrl)) return Promise.resolve(false);
    let known = this.imitation.get(baseUrl);
    if (!known) {
      known = probeImitation(baseUrl);
      this.imitation.set(baseUrl, known);
    }
    return known;
  }

  /** The provider for the next send, from the settings as they are now. */
  async resolve(): Promise<ResolvedProvider> {
    this.pending = undefined;
    const chosen = settingInForce('provider');
    const setting = chosen.value;
    const model = readSetting('model').trim();
    const base = settingInForce('baseUrl');
    const baseUrl = base.value.trim();
    const fromWorkspace = chosen.origin === 'workspace' || base.origin === 'workspace';
    if (setting === 'openai' || setting === 'anthropic') return this.keyed(setting, model, baseUrl, fromWorkspace);
    if (setting === 'vscode-lm') return this.editor(model, true);
    // auto: an editor model, else a local Ollama, else nothing.
    const viaEditor = await this.editor(model, false);
    if (viaEditor.provider) return viaEditor;
    if (baseUrl) return this.keyed('openai', model, baseUrl, fromWorkspace);
    const providers = await loadProviders();
    const ollama = await providers.probeOllama().catch(() => undefined);
    if (ollama && ollama.models.length > 0) {
      const pick = ollama.models.includes(model) ? model : ollama.models[0];
      const provider = new providers.OpenAIProvider({ baseURL: ollama.baseURL, promptCacheKey: false });
      // Whatever answers on that port gets the chat: the label names the server before the first send.
      const info = { ...modelInfo('openai', pick), label: `${ollamaName(ollama.baseURL)} · ${pick}` };
      return { provider, info, view: { provider: 'openai', model: pick, label: info.label, configured: true, imitation: false } };
    }
    const info = modelInfo('openai', model || DEFAULT_MODELS.openai);
    return {
      provider: undefined,
      info,
      view: { provider: 'none', model: '', label: 'No model configured', configured: false, imitation: false },
      problem: {
        message:
          'No model is available: the editor offers no chat model and no Ollama answers on 127.0.0.1:11434. Choose a provider and model, or set an API key.',
        action: 'selectModel',
      },
    };
  }

  /**
   * Asks the user about the endpoint the last resolve held back (a workspace's choice); true when it
   * is confirmed now, so the caller resolves again.
   */
  async confirmPendingEndpoint(): Promise<boolean> {
    const question = this.pending;
    if (!question || !(await this.endpoints.confirm(question))) return false;
    this.pending = undefined;
    return true;
  }

  /**
   * The endpoint a workspace's settings chose that is not the user's own and not confirmed, or
   * undefined when requests may go there. A key is bound to its provider's public API or to the base
   * URL in the user's own settings; any other origin a workspace names waits for the user.
   */
  private heldBack(kind: KeyedProvider, baseUrl: string, fromWorkspace: boolean, carriesKey: boolean): EndpointQuestion | undefined {
    const origin = originToConfirm({
      kind,
      baseUrl,
      fromWorkspace,
      userBaseUrl: userSetting('baseUrl'),
      userProvider: userSetting('provider'),
      confirmed: this.endpoints.list(),
      carriesKey,
    });
    if (!origin) return undefined;
    const settings = (['provider', 'baseUrl'] as const).filter((k) => settingInForce(k).origin === 'workspace').map((k) => `strata.${k}`);
    return { origin, provider: PROVIDER_NAMES[kind], kind, settings, carriesKey };
  }

  private async editor(model: string, explicit: boolean): Promise<ResolvedProvider> {
    let models: vscode.LanguageModelChat[] = [];
    try {
      models = await vscode.lm.selectChatModels(model ? { id: model } : undefined);
      if (models.length === 0 && model) models = await vscode.lm.selectChatModels({ family: model });
      if (models.length === 0 && !explicit) models = await vscode.lm.selectChatModels();
    } catch {
      models = [];
    }
    const pick = models[0];
    if (!pick) {
      const info = modelInfo('vscode-lm', model || 'editor model');
      return {
        provider: undefined,
        info,
        view: {
          provider: explicit ? 'vscode-lm' : 'none',
          model,
          label: explicit ? `VS Code · ${model || 'no model'}` : 'No model configured',
          configured: false,
          imitation: false,
        },
        problem: {
          message: model
            ? `The editor offers no chat model "${model}". Pick one with "Strata: Select Model".`
            : 'The editor offers no chat model. Install one (for example GitHub Copilot Chat), or choose another provider.',
          action: 'selectModel',
        },
      };
    }
    const info = {
      ...modelInfo('vscode-lm', pick.id, { maxInputTokens: pick.maxInputTokens }),
      label: editorModelLabel(pick.name || pick.id, editorLmFeatures()),
    };
    return {
      provider: new VscodeLmProvider(),
      info,
      view: { provider: 'vscode-lm', model: pick.id, label: info.label, configured: true, imitation: false },
    };
  }

  private async keyed(kind: KeyedProvider, model: string, baseUrl: string, fromWorkspace: boolean): Promise<ResolvedProvider> {
    const modelId = model || DEFAULT_MODELS[kind];
    const info = modelInfo(kind, modelId);
    const local = baseUrl !== '' && isLoopbackUrl(baseUrl);
    const key = await this.apiKey(kind);
    const held = this.heldBack(kind, baseUrl, fromWorkspace, !!key);
    if (held) {
      this.pending = held;
      const label = `${PROVIDER_NAMES[kind]} at ${held.origin} (not confirmed) · ${modelId}`;
      info.label = label;
      return {
        provider: undefined,
        info,
        view: { provider: kind, model: modelId, label, configured: false, imitation: false },
        problem: {
          message: `This workspace's settings (${held.settings.join(', ')}) send Strata's requests to ${held.origin}. Nothing goes there — no key, no chat, no model listing — until you confirm it: send a message to be asked.`,
          action: 'openSettings',
        },
      };
    }
    const imitation = local ? await this.isImitation(baseUrl) : false;
    const where = imitation
      ? 'Local imitation server'
      : local
        ? `${PROVIDER_NAMES[kind]} at ${safeHost(baseUrl)}`
        : baseUrl
          ? `${PROVIDER_NAMES[kind]}-compatible at ${safeHost(baseUrl)}`
          : PROVIDER_NAMES[kind];
    const view: ModelView = { provider: kind, model: modelId, label: `${where} · ${modelId}`, configured: !!key || local, imitation };
    info.label = view.label;
    if (!key && !local) {
      return {
        provider: undefined,
        info,
        view,
        problem: {
          message: `No API key is set for ${PROVIDER_NAMES[kind]}. Set one with "Strata: Set API Key" (or ${ENV_KEYS[kind]} in the environment).`,
          action: 'setApiKey',
        },
      };
    }
    const providers = await loadProviders();
    const provider =
      kind === 'openai'
        ? new providers.OpenAIProvider({ apiKey: key, baseURL: baseUrl || undefined, promptCacheKey: readSetting('promptCacheKey') })
        : new providers.AnthropicProvider({ apiKey: key, baseURL: baseUrl || undefined, cacheTtl: readSetting('anthropicCacheTtl') });
    return { provider: this.watch ? this.watch(provider, view.label) : provider, info, view };
  }

  /** Choices for the model picker: editor models, then the keyed providers' models. */
  async modelOptions(): Promise<ModelOption[]> {
    const out: ModelOption[] = [];
    try {
      for (const m of await editorModels())
        out.push({ provider: 'vscode-lm', model: m.id, label: m.name ?? m.id, detail: `VS Code · ${m.vendor ?? ''}`.trim() });
    } catch {
      // no editor models
    }
    const base = settingInForce('baseUrl');
    const chosen = settingInForce('provider');
    const openaiBase = chosen.value === 'anthropic' ? '' : base.value.trim();
    const held = this.heldBack('openai', openaiBase, chosen.origin === 'workspace' || base.origin === 'workspace', false);
    const openaiModels = held ? [] : await this.listOpenAiModels(openaiBase).catch(() => [] as string[]);
    const imitation = openaiBase && !held ? await this.isImitation(openaiBase) : false;
    const openaiDetail = held
      ? `OpenAI-compatible at ${held.origin} (not confirmed)`
      : imitation
        ? 'Local imitation server'
        : openaiBase
          ? `OpenAI-compatible at ${safeHost(openaiBase)}`
          : 'OpenAI';
    for (const id of openaiModels.length > 0 ? openaiModels : ['gpt-4o', 'gpt-4.1', 'gpt-5', 'o4-mini'])
      out.push({ provider: 'openai', model: id, label: id, detail: openaiDetail });
    for (const id of KNOWN_ANTHROPIC_MODELS) out.push({ provider: 'anthropic', model: id, label: id, detail: 'Anthropic' });
    return out;
  }

  private async listOpenAiModels(baseUrl: string): Promise<string[]> {
    const key = await this.apiKey('openai');
    if (!key && !(baseUrl && isLoopbackUrl(baseUrl))) return [];
    const providers = await loadProviders();
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 3000);
    try {
      return await new providers.OpenAIProvider({ apiKey: key, baseURL: baseUrl || undefined }).listModels(ctrl.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The settings that choose this provider, written to the user's settings. */
  static async choose(option: Pick<ModelOption, 'provider' | 'model'>): Promise<void> {
    await writeSetting('provider', option.provider);
    await writeSetting('model', option.model);
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured server';
  }
}

async function probeImitation(baseUrl: string): Promise<boolean> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), 1500);
  try {
    const root = baseUrl.replace(/\/+$/, '');
    const res = await fetch(`${root}/models`, { signal: ctrl.signal });
    if (res.headers.get('x-strata-imitation') === '1') return true;
    if (!res.ok) return false;
    const body = (await res.json()) as { data?: { owned_by?: unknown }[] };
    return Array.isArray(body.data) && body.data.some((m) => m.owned_by === 'strata-imitation');
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export type { ProviderId };
