/**
 * Servers the user has confirmed for endpoints that a workspace's settings choose. A repository's
 * `.vscode/settings.json` can name any `strata.baseUrl` or `strata.provider`; until the user
 * confirms that origin once, nothing (no key, no chat, no model listing) goes there. Confirmations
 * live in the user's global state, so one repository cannot confirm for another; "Strata: Forget
 * Trusted Endpoints" takes them all back.
 */
import * as vscode from 'vscode';
import { confirmationKey } from './endpointOrigin';

const STORE_KEY = 'confirmedEndpointOrigins';

/** What the confirmation names: the origin, the provider, the settings that chose it, and whether a key would go along. */
export interface EndpointQuestion {
  origin: string;
  /** The provider's name, for the question. */
  provider: string;
  /** The provider's kind (`openai`, `anthropic`): part of what a confirmation stands for. */
  kind: string;
  settings: readonly string[];
  carriesKey: boolean;
}

async function askWithModal(question: EndpointQuestion): Promise<boolean> {
  const use = vscode.l10n.t('Send to {0}', question.origin);
  const detail = question.carriesKey
    ? vscode.l10n.t(
        'Your chats, the files attached to them and your {0} API key would go to this server. Confirm only if you trust it; "Strata: Forget Trusted Endpoints" takes the confirmation back.',
        question.provider,
      )
    : vscode.l10n.t(
        'Your chats and the files attached to them would go to this server. Confirm only if you trust it; "Strata: Forget Trusted Endpoints" takes the confirmation back.',
      );
  const pick = await vscode.window.showWarningMessage(
    vscode.l10n.t("This workspace's settings ({0}) send Strata's requests to {1}.", question.settings.join(', '), question.origin),
    { modal: true, detail },
    use,
  );
  return pick === use;
}

export class EndpointTrust {
  /** Asks the user; the integration suite answers in its place, as it does for other prompts. */
  ask: (question: EndpointQuestion) => Promise<boolean> = askWithModal;

  constructor(private readonly memento: vscode.Memento) {}

  /** The confirmations, each an origin with its provider and whether a key goes along (endpointOrigin.ts confirmationKey). */
  list(): string[] {
    const stored = this.memento.get<unknown>(STORE_KEY);
    return Array.isArray(stored) ? stored.filter((o): o is string => typeof o === 'string') : [];
  }

  isTrusted(question: Pick<EndpointQuestion, 'origin' | 'kind' | 'carriesKey'>): boolean {
    return this.list().includes(confirmationKey(question.origin, question.kind, question.carriesKey));
  }

  async trust(question: Pick<EndpointQuestion, 'origin' | 'kind' | 'carriesKey'>): Promise<void> {
    if (!this.isTrusted(question))
      await this.memento.update(STORE_KEY, [...this.list(), confirmationKey(question.origin, question.kind, question.carriesKey)]);
  }

  /** Forgets every confirmation; returns how many there were. */
  async forgetAll(): Promise<number> {
    const count = this.list().length;
    await this.memento.update(STORE_KEY, undefined);
    return count;
  }

  /** True once the origin is confirmed for this provider, with or without a key as asked (asking the user when it is not yet). */
  async confirm(question: EndpointQuestion): Promise<boolean> {
    if (this.isTrusted(question)) return true;
    if (!(await this.ask(question))) return false;
    await this.trust(question);
    return true;
  }
}
