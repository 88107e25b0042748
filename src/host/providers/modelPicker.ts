/**
 * "Strata: Select Model", the way in: the current model (checked), the editor's models, the keyed
 * providers' models (those without a key marked; picking one asks for the key at once), the chosen
 * local server's models with their windows, and three ways to anything else: "Local server…"
 * (looks on the usual ports only when chosen), "OpenAI-compatible endpoint…" (asks for the URL and
 * lists that server's models) and "Other model id…".
 */
import * as vscode from 'vscode';
import {
  LOCAL_SERVER_PROVIDERS,
  PROVIDER_CATALOG,
  PROVIDER_NAMES,
  isKeyedProvider,
  type KeyedProvider,
  type ProviderName,
} from '../../common/providerCatalog';
import type { ServerModel } from '../../services/providers/localServers';
import { isLoopbackUrl, type PickedModel, type ProviderResolver } from './providerResolver';
import type { ModelView } from '../../protocol/messages';

/** The quick pick and input box the picker asks with (integration tests answer in their place). */
export interface PickerUi {
  pick<T extends vscode.QuickPickItem>(items: readonly T[], placeHolder: string): Promise<T | undefined>;
  input(options: vscode.InputBoxOptions): Promise<string | undefined>;
}

export const vscodePickerUi: PickerUi = {
  pick: (items, placeHolder) => Promise.resolve(vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true })),
  input: (options) => Promise.resolve(vscode.window.showInputBox({ ignoreFocusOut: true, ...options })),
};

type Special = 'local' | 'endpoint' | 'other';
interface Item extends vscode.QuickPickItem {
  option?: PickedModel;
  special?: Special;
}

export interface ModelPickerDeps {
  resolver: ProviderResolver;
  current(): ModelView | undefined;
  /** Asks for `provider`'s key (the "Set API Key" prompt); true when one is stored. */
  askKey(provider: KeyedProvider): Promise<boolean>;
  /** Writes the choice and refreshes the panel. */
  apply(option: PickedModel): Promise<void>;
}

/** How long each usual port gets to answer when the user asks Strata to look for local servers. */
const PROBE_TIMEOUT_MS = 1500;

export class ModelPicker {
  ui: PickerUi = vscodePickerUi;
  /** The items of the last list shown (integration tests read what the user saw). */
  lastShown: readonly vscode.QuickPickItem[] = [];

  constructor(private readonly d: ModelPickerDeps) {}

  private async show<T extends vscode.QuickPickItem>(items: readonly T[], placeHolder: string): Promise<T | undefined> {
    this.lastShown = items;
    return this.ui.pick(items, placeHolder);
  }

  /** The whole picker; the chosen model, or undefined when the user backed out. */
  async run(): Promise<PickedModel | undefined> {
    const current = this.d.current();
    const options = await this.d.resolver.pickerModels();
    const isCurrent = (o: PickedModel) => !!current && current.provider === o.provider && current.model === o.model;
    const items: Item[] = [];
    const currentOption = options.find(isCurrent);
    if (current && current.provider !== 'none' && current.provider !== 'auto' && current.model) {
      const option = currentOption ?? { provider: current.provider, model: current.model, label: current.model };
      items.push({
        label: `$(check) ${current.model}`,
        description: current.label,
        detail: vscode.l10n.t('current model'),
        picked: true,
        option,
      });
    }
    let group = '';
    for (const o of options) {
      if (isCurrent(o)) continue;
      const name = o.provider === 'vscode-lm' ? 'VS Code' : PROVIDER_CATALOG[o.provider].name;
      if (name !== group) {
        items.push({ label: name, kind: vscode.QuickPickItemKind.Separator });
        group = name;
      }
      items.push({ label: o.label, description: o.detail, option: o });
    }
    items.push(
      { label: vscode.l10n.t('More'), kind: vscode.QuickPickItemKind.Separator },
      {
        label: `$(server) ${vscode.l10n.t('Local server…')}`,
        description: vscode.l10n.t('look for Ollama, LM Studio, llama.cpp and vLLM on this machine'),
        special: 'local',
      },
      {
        label: `$(plug) ${vscode.l10n.t('OpenAI-compatible endpoint…')}`,
        description: vscode.l10n.t("enter a server's URL and pick one of its models"),
        special: 'endpoint',
      },
      { label: `$(edit) ${vscode.l10n.t('Other model id…')}`, description: vscode.l10n.t('type any model id'), special: 'other' },
    );
    const pick = await this.show(items, vscode.l10n.t('Model for Strata (current: {0})', current?.label ?? 'none'));
    if (!pick) return undefined;
    // The current model is already in force: choosing it again changes nothing and asks for nothing.
    if (pick.picked && pick.option) return pick.option;
    const chosen =
      pick.special === 'local'
        ? await this.localServer()
        : pick.special === 'endpoint'
          ? await this.endpoint()
          : pick.special === 'other'
            ? await this.otherId()
            : pick.option;
    if (!chosen) return undefined;
    return this.finish(chosen);
  }

  /** "Local server…" on its own (the walkthrough's step): look, list, choose. */
  async runLocalServer(): Promise<PickedModel | undefined> {
    const chosen = await this.localServer();
    return chosen ? this.finish(chosen) : undefined;
  }

  /** Asks for a missing key before the choice is written: a keyed model is never chosen as if it were ready. */
  private async finish(option: PickedModel): Promise<PickedModel | undefined> {
    if (isKeyedProvider(option.provider)) {
      const local = !!option.baseUrl && isLoopbackUrl(option.baseUrl);
      if (!local && !(await this.d.resolver.apiKey(option.provider)) && !(await this.d.askKey(option.provider))) return undefined;
    }
    await this.d.apply(option);
    return option;
  }

  /** Looks on the usual ports (only now: the user asked) and lists every model that answers. */
  async localServer(): Promise<PickedModel | undefined> {
    const found = await Promise.all(
      LOCAL_SERVER_PROVIDERS.map(async (kind) => {
        const models = await this.d.resolver.serverModels(kind, '', { fresh: true, timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
        return { kind, models };
      }),
    );
    const items: Item[] = [];
    for (const { kind, models } of found) {
      if (!models) continue;
      items.push({ label: PROVIDER_CATALOG[kind].name, kind: vscode.QuickPickItemKind.Separator });
      if (models.length === 0)
        items.push({ label: vscode.l10n.t('{0} answers but serves no model yet', PROVIDER_CATALOG[kind].name), special: 'local' });
      for (const o of this.d.resolver.serverOptions(kind, '', models)) items.push({ label: o.label, description: o.detail, option: o });
    }
    const ports = LOCAL_SERVER_PROVIDERS.map((k) => `${PROVIDER_CATALOG[k].name} ${new URL(PROVIDER_CATALOG[k].defaultRoot).port}`).join(
      ', ',
    );
    items.push({
      label: `$(globe) ${vscode.l10n.t('Another address…')}`,
      description: items.length === 0 ? vscode.l10n.t('nothing answers on the usual ports ({0})', ports) : undefined,
      special: 'endpoint',
    });
    const pick = await this.show(items, vscode.l10n.t('Models of the local servers that answer'));
    if (!pick) return undefined;
    if (pick.special === 'endpoint') return this.endpoint();
    return pick.option;
  }

  /** Asks for a server's URL and lists its models (with the window when the server says it). */
  async endpoint(): Promise<PickedModel | undefined> {
    const url = await this.ui.input({
      prompt: vscode.l10n.t("The server's base URL (for example http://127.0.0.1:8000/v1 or https://my-server.example/v1)"),
      placeHolder: 'http://127.0.0.1:8000/v1',
      validateInput: (v) => (validUrl(v) ? undefined : vscode.l10n.t('Enter an http:// or https:// URL.')),
    });
    if (!url || !validUrl(url)) return undefined;
    const base = url.trim().replace(/\/+$/, '');
    const kind = await this.identify(base);
    const models = kind
      ? await this.d.resolver.serverModels(kind.provider, kind.baseUrl, { fresh: true, withoutKey: true }).catch(() => [] as ServerModel[])
      : [];
    if (!kind || models.length === 0) {
      const id = await this.ui.input({
        prompt: vscode.l10n.t('{0} listed no models. The model id to send to it:', base),
        validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter a model id.')),
      });
      return id?.trim() ? { provider: kind?.provider ?? 'openai', model: id.trim(), label: id.trim(), baseUrl: base } : undefined;
    }
    const options = this.d.resolver.serverOptions(kind.provider, kind.baseUrl, models);
    const pick = await this.show(
      options.map((o) => ({ label: o.label, description: o.detail, option: o })),
      vscode.l10n.t('Models at {0}', base),
    );
    return pick?.option;
  }

  /**
   * Which provider speaks for the server at `base`: the first local server of the catalog whose own
   * listing answers there with windows (Ollama's `/api/show`, LM Studio's `/api/v0/models`,
   * llama.cpp's `/props`, vLLM's `max_model_len`), else plain OpenAI-compatible.
   */
  private async identify(base: string): Promise<{ provider: ProviderName; baseUrl: string } | undefined> {
    const root = base.replace(/\/v1$/, '');
    for (const kind of LOCAL_SERVER_PROVIDERS) {
      const models = await this.d.resolver.serverModels(kind, root, { fresh: true, timeoutMs: PROBE_TIMEOUT_MS }).catch(() => undefined);
      if (models?.some((m) => m.facts.source === 'server')) return { provider: kind, baseUrl: root };
    }
    const listed = await this.d.resolver
      .serverModels('openai', base, { fresh: true, timeoutMs: PROBE_TIMEOUT_MS, withoutKey: true })
      .catch(() => undefined);
    return listed ? { provider: 'openai', baseUrl: base } : undefined;
  }

  /** A provider, then any model id. */
  async otherId(): Promise<PickedModel | undefined> {
    const pick = await this.show(
      PROVIDER_NAMES.map((p) => ({
        label: PROVIDER_CATALOG[p].name,
        description: PROVIDER_CATALOG[p].localServer ? PROVIDER_CATALOG[p].defaultRoot : '',
        provider: p,
      })),
      vscode.l10n.t('Which provider serves the model?'),
    );
    if (!pick) return undefined;
    const id = await this.ui.input({
      prompt: vscode.l10n.t('The model id to send to {0}', pick.label),
      validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('Enter a model id.')),
    });
    if (!id?.trim()) return undefined;
    return { provider: pick.provider, model: id.trim(), label: id.trim(), baseUrl: '' };
  }
}

function validUrl(v: string): boolean {
  try {
    const u = new URL(v.trim());
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}
