/**
 * Turns the `strata.*` provider settings, the stored API keys and the editor's language models
 * into the provider a turn is sent with. LangChain (and so the OpenAI / Anthropic clients) is loaded
 * on the first send, never at activation.
 *
 * Keys: SecretStorage (`Strata: Set API Key`), else the provider's environment variable
 * (`OPENAI_API_KEY`, …, see src/common/providerCatalog.ts). A base URL on the loopback (127.0.0.1,
 * localhost, [::1]) needs no key. Keys are never written to settings, logs or exports.
 *
 * Local servers (Ollama, LM Studio, llama.cpp, vLLM) are contacted only once the user chose one
 * (`strata.provider`) or asked the picker to look; each model's window is what its server says.
 */
import * as vscode from 'vscode';
import type { ModelOption, ModelView, ProviderId } from '../../protocol/messages';
import type { ChatProvider } from '../../services/providers/types';
import type { ServerModel } from '../../services/providers/localServers';
import { modelInfo, type ModelInfo } from '../../services/modelInfo';
import {
  KEYED_PROVIDERS,
  PROVIDER_CATALOG,
  isKeyedProvider,
  isProviderName,
  type KeyedProvider,
  type LocalServerProvider,
  type ProviderName,
} from '../../common/providerCatalog';
import { readSetting, settingInForce, userSetting, writeSetting } from '../settings/config';
import { originToConfirm } from './endpointOrigin';
import type { EndpointQuestion, EndpointTrust } from './endpointTrust';
import { editorLmFeatures, editorModels, VscodeLmProvider } from './vscodeLmProvider';
import { editorModelLabel } from './lmCompat';

export { KEYED_PROVIDERS, type KeyedProvider };
const secretKey = (p: KeyedProvider): string => `strata-api-key:${p}`;
const envKey = (p: KeyedProvider): string => PROVIDER_CATALOG[p].key.env;
const providerName = (p: ProviderName | 'vscode-lm'): string => (p === 'vscode-lm' ? 'VS Code' : PROVIDER_CATALOG[p].name);
/** How long a server's model list is reused by sends before it is asked again. */
const LISTING_TTL_MS = 30_000;

/** A model the picker offers, with the endpoint it was listed from (written to `strata.baseUrl` when picked). */
export interface PickedModel extends ModelOption {
  baseUrl?: string;
}

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

type ProvidersModule = typeof import(/* webpackChunkName: "providers" */ '../../services/providers/index.js');
let providersModule: Promise<ProvidersModule> | undefined;

/** Loads LangChain and the provider clients on first use (a few hundred ms; never at activation). */
export function loadProviders(): Promise<ProvidersModule> {
  providersModule ??= import(/* webpackChunkName: "providers" */ '../../services/providers/index.js');
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
    const stored = await this.secrets.get(secretKey(provider));
    if (stored) return stored;
    const env = process.env[envKey(provider)];
    return env && env.trim().length > 0 ? env.trim() : undefined;
  }

  async setApiKey(provider: KeyedProvider, key: string | undefined): Promise<void> {
    if (key) await this.secrets.store(secretKey(provider), key);
    else await this.secrets.delete(secretKey(provider));
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
    if (isKeyedProvider(setting)) return this.keyed(setting, model, baseUrl, fromWorkspace);
    if (isProviderName(setting)) return this.local(setting, model, baseUrl, fromWorkspace);
    if (setting === 'vscode-lm') return this.editor(model, true);
    // auto: an editor model, else the server at strata.baseUrl. No server is probed unasked: the
    // picker's "Local server…" looks for one when the user chooses it.
    const viaEditor = await this.editor(model, false);
    if (viaEditor.provider) return viaEditor;
    if (baseUrl) return this.keyed('openai', model, baseUrl, fromWorkspace);
    const info = modelInfo('openai', model || PROVIDER_CATALOG.openai.defaultModel);
    return {
      provider: undefined,
      info,
      view: { provider: 'none', model: '', label: 'No model configured', configured: false, imitation: false },
      problem: {
        message:
          'No model is available: the editor offers no chat model. Choose one with "Strata: Select Model": a provider with your API key, a local server (Ollama, LM Studio, llama.cpp, vLLM) or an OpenAI-compatible endpoint.',
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
  private heldBack(kind: ProviderName, baseUrl: string, fromWorkspace: boolean, carriesKey: boolean): EndpointQuestion | undefined {
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
    return { origin, provider: providerName(kind), kind, settings, carriesKey };
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
    const modelId = model || PROVIDER_CATALOG[kind].defaultModel;
    const info = modelInfo(kind, modelId);
    const local = baseUrl !== '' && isLoopbackUrl(baseUrl);
    const key = await this.apiKey(kind);
    const held = this.heldBack(kind, baseUrl, fromWorkspace, !!key);
    if (held) {
      this.pending = held;
      const label = `${providerName(kind)} at ${held.origin} (not confirmed) · ${modelId}`;
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
        ? `${providerName(kind)} at ${safeHost(baseUrl)}`
        : baseUrl
          ? `${providerName(kind)}-compatible at ${safeHost(baseUrl)}`
          : providerName(kind);
    const view: ModelView = { provider: kind, model: modelId, label: `${where} · ${modelId}`, configured: !!key || local, imitation };
    info.label = view.label;
    if (!key && !local) {
      return {
        provider: undefined,
        info,
        view,
        problem: {
          message: `No API key is set for ${providerName(kind)}. Set one with "Strata: Set API Key" (or ${envKey(kind)} in the environment).`,
          action: 'setApiKey',
        },
      };
    }
    const providers = await loadProviders();
    const provider = providers.createProvider(kind, {
      apiKey: key,
      baseUrl,
      promptCacheKey: readSetting('promptCacheKey'),
      anthropicCacheTtl: readSetting('anthropicCacheTtl'),
    });
    return { provider: this.watch ? this.watch(provider, view.label) : provider, info, view };
  }

  /** A server's models, asked again after `LISTING_TTL_MS` (a send does not wait on a listing each time). */
  private readonly listings = new Map<string, { at: number; models: Promise<ServerModel[]> }>();

  /** The models `kind`'s server at `baseUrl` serves, with their windows; throws when it does not answer. */
  async serverModels(
    kind: ProviderName,
    baseUrl: string,
    opts: { fresh?: boolean; timeoutMs?: number; withoutKey?: boolean } = {},
  ): Promise<ServerModel[]> {
    const cacheKey = `${kind} ${baseUrl}`;
    const known = this.listings.get(cacheKey);
    if (known && !opts.fresh && Date.now() - known.at < LISTING_TTL_MS) return known.models;
    // A URL the user is still typing is not in their settings yet: the key does not go there.
    const apiKey = isKeyedProvider(kind) && !opts.withoutKey ? await this.apiKey(kind) : undefined;
    const providers = await loadProviders();
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), opts.timeoutMs ?? 3000);
    const models = providers
      .listProviderModels(kind, { baseUrl, apiKey, numCtxCap: readSetting('ollama.maxContextTokens'), signal: ctrl.signal })
      .finally(() => clearTimeout(timer));
    this.listings.set(cacheKey, { at: Date.now(), models });
    models.catch(() => this.listings.delete(cacheKey));
    return models;
  }

  /** A local server the user chose: its model, with the window the server says it runs. */
  private async local(kind: LocalServerProvider, model: string, baseUrl: string, fromWorkspace: boolean): Promise<ResolvedProvider> {
    const name = providerName(kind);
    const root = baseUrl || PROVIDER_CATALOG[kind].defaultRoot;
    const where = `${name} at ${safeHost(root)}`;
    const held = this.heldBack(kind, baseUrl, fromWorkspace, false);
    if (held) {
      this.pending = held;
      const label = `${name} at ${held.origin} (not confirmed) · ${model || 'no model'}`;
      return {
        provider: undefined,
        info: { ...modelInfo(kind, model || 'server model'), label },
        view: { provider: kind, model, label, configured: false, imitation: false },
        problem: {
          message: `This workspace's settings (${held.settings.join(', ')}) send Strata's requests to ${held.origin}. Nothing goes there — no chat, no model listing — until you confirm it: send a message to be asked.`,
          action: 'openSettings',
        },
      };
    }
    let models: ServerModel[];
    try {
      models = await this.serverModels(kind, baseUrl);
    } catch {
      const label = `${where} (not answering) · ${model || 'no model'}`;
      return {
        provider: undefined,
        info: { ...modelInfo(kind, model || 'server model'), label },
        view: { provider: kind, model, label, configured: false, imitation: false },
        problem: {
          message: `${name} does not answer at ${root}. Start it, or choose another model with "Strata: Select Model".`,
          action: 'selectModel',
        },
      };
    }
    const served = models.find((m) => m.id === model) ?? (model ? undefined : models[0]);
    if (!served) {
      const label = `${where} · ${model || 'no model'}`;
      return {
        provider: undefined,
        info: { ...modelInfo(kind, model || 'server model'), label },
        view: { provider: kind, model, label, configured: false, imitation: false },
        problem: {
          message: model
            ? `${name} at ${root} does not serve "${model}". Choose one of its models with "Strata: Select Model".`
            : `${name} at ${root} serves no model yet. Load or pull one, then choose it with "Strata: Select Model".`,
          action: 'selectModel',
        },
      };
    }
    const imitation = await this.isImitation(`${root.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`);
    const label = `${imitation ? `Local imitation of ${name}` : where} · ${served.id}`;
    const info = { ...modelInfo(kind, served.id, served.facts), label };
    const providers = await loadProviders();
    const provider = providers.createProvider(kind, { baseUrl, contextWindow: info.contextWindow });
    const view: ModelView = { provider: kind, model: served.id, label, configured: true, imitation };
    return { provider: this.watch ? this.watch(provider, label) : provider, info, view };
  }

  /** Choices for the model picker: editor models, then the keyed providers' models. */
  async modelOptions(): Promise<ModelOption[]> {
    return (await this.pickerModels()).map(({ provider, model, label, detail }) =>
      detail === undefined ? { provider, model, label } : { provider, model, label, detail },
    );
  }

  /**
   * The models the picker lists without looking for servers: the editor's, the keyed providers'
   * (the OpenAI-compatible endpoint's own list when one is set), and the chosen local server's.
   */
  async pickerModels(): Promise<PickedModel[]> {
    const out: PickedModel[] = [];
    try {
      for (const m of await editorModels())
        out.push({ provider: 'vscode-lm', model: m.id, label: m.name ?? m.id, detail: `VS Code · ${m.vendor ?? ''}`.trim() });
    } catch {
      // no editor models
    }
    const base = settingInForce('baseUrl');
    const chosen = settingInForce('provider');
    const fromWorkspace = chosen.origin === 'workspace' || base.origin === 'workspace';
    const openaiBase = chosen.value === 'openai' || chosen.value === 'auto' ? base.value.trim() : '';
    const held = this.heldBack('openai', openaiBase, fromWorkspace, false);
    const openaiModels = held ? [] : await this.listOpenAiModels(openaiBase).catch(() => [] as string[]);
    const imitation = openaiBase && !held ? await this.isImitation(openaiBase) : false;
    const openaiDetail = held
      ? `OpenAI-compatible at ${held.origin} (not confirmed)`
      : imitation
        ? 'Local imitation server'
        : openaiBase
          ? `OpenAI-compatible at ${safeHost(openaiBase)}`
          : 'OpenAI';
    for (const kind of KEYED_PROVIDERS) {
      const compatible = kind === 'openai' && openaiModels.length > 0;
      const ids = compatible ? openaiModels : PROVIDER_CATALOG[kind].knownModels;
      const keyMissing = !(await this.apiKey(kind)) && !(compatible && isLoopbackUrl(openaiBase));
      const where = kind === 'openai' ? openaiDetail : providerName(kind);
      for (const id of ids)
        out.push({
          provider: kind,
          model: id,
          label: id,
          detail: keyMissing ? `${where} · no API key yet: picking asks for it` : where,
          baseUrl: kind === 'openai' ? openaiBase : '',
        });
    }
    // The chosen local server's models: it is the user's choice, so it may be asked.
    const setting = chosen.value;
    if (
      isProviderName(setting) &&
      PROVIDER_CATALOG[setting].localServer &&
      !this.heldBack(setting, base.value.trim(), fromWorkspace, false)
    ) {
      const models = await this.serverModels(setting, base.value.trim()).catch(() => [] as ServerModel[]);
      out.push(...this.serverOptions(setting, base.value.trim(), models));
    }
    return out;
  }

  /** Picker entries for a server's models, each with the window the server says. */
  serverOptions(kind: ProviderName, baseUrl: string, models: readonly ServerModel[]): PickedModel[] {
    const root = baseUrl || PROVIDER_CATALOG[kind].defaultRoot;
    const where = `${providerName(kind)} at ${safeHost(root)}`;
    return models.map((m) => ({ provider: kind, model: m.id, label: m.id, detail: m.detail ? `${where} · ${m.detail}` : where, baseUrl }));
  }

  private async listOpenAiModels(baseUrl: string): Promise<string[]> {
    const key = await this.apiKey('openai');
    if (!key && !(baseUrl && isLoopbackUrl(baseUrl))) return [];
    return (await this.serverModels('openai', baseUrl)).map((m) => m.id);
  }

  /** The settings that choose this provider, written to the user's settings. */
  static async choose(option: Pick<PickedModel, 'provider' | 'model' | 'baseUrl'>): Promise<void> {
    await writeSetting('provider', option.provider);
    await writeSetting('model', option.model);
    if (option.baseUrl !== undefined) await writeSetting('baseUrl', option.baseUrl);
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
