/**
 * Where a keyed provider's requests go, and whether a workspace-chosen endpoint has to wait for the
 * user. No vscode import: unit tests load this file in plain Node.
 */
import { PROVIDER_CATALOG, PROVIDER_NAMES, type ProviderName } from '../../common/providerCatalog';

/** Where each provider's client sends when no base URL is set: its public API, or its server's usual loopback address. */
export const PUBLIC_ORIGINS: Readonly<Record<ProviderName, string>> = Object.fromEntries(
  PROVIDER_NAMES.map((p) => [p, PROVIDER_CATALOG[p].defaultRoot]),
) as Record<ProviderName, string>;

/** `scheme://host:port` of a URL, or undefined when it is not one. */
export function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin && origin !== 'null' ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** "Ollama at http://127.0.0.1:11434": the server the `auto` fallback sends to, by name. */
export function ollamaName(baseURL: string): string {
  return `Ollama at ${originOf(baseURL) ?? baseURL}`;
}

export interface EndpointChoice {
  kind: ProviderName;
  /** The base URL in force (empty: the provider's public API). */
  baseUrl: string;
  /** The provider or the base URL in force comes from the workspace's settings. */
  fromWorkspace: boolean;
  /** The user's own settings. */
  userBaseUrl: string;
  userProvider: string;
  /** Confirmations the user gave, as `confirmationKey` writes them. */
  confirmed: readonly string[];
  /** An API key would go along with the requests. */
  carriesKey: boolean;
}

/**
 * What one confirmation stands for: this origin, for this provider, with or without a key. A
 * change in any of them asks again (an origin confirmed while no key existed does not later get the
 * key unasked, nor one provider's confirmation another provider's key).
 */
export function confirmationKey(origin: string, kind: string, carriesKey: boolean): string {
  return `${origin} ${kind} ${carriesKey ? 'with-key' : 'no-key'}`;
}

/**
 * The origin that must be confirmed before anything goes there, or undefined. A key is bound to its
 * provider's public API (when the user's own settings choose that provider) or to the base URL in
 * the user's own settings; any other origin a workspace's settings name waits for the user.
 */
export function originToConfirm(choice: EndpointChoice): string | undefined {
  if (!choice.fromWorkspace) return undefined;
  const baseUrl = choice.baseUrl.trim();
  const origin = baseUrl ? (originOf(baseUrl) ?? baseUrl) : PUBLIC_ORIGINS[choice.kind];
  const userBase = choice.userBaseUrl.trim();
  // The user's own endpoint is the one their settings pair with their own provider: their base URL
  // set up for one provider is not a place for another provider's key.
  const userOwn = choice.userProvider === choice.kind;
  const userOrigin = !userOwn ? undefined : userBase ? originOf(userBase) : PUBLIC_ORIGINS[choice.kind];
  if (origin === userOrigin || choice.confirmed.includes(confirmationKey(origin, choice.kind, choice.carriesKey))) return undefined;
  return origin;
}
