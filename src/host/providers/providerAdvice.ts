/** What the panel offers the user when no provider can take a request, or a provider fails. */
import type { BannerAction } from '../../protocol/messages';

/**
 * The banner's buttons for a provider error: the action that fixes that kind of failure first. A
 * connection that failed (refused, a host name that does not resolve, lost) offers Edit Base URL
 * when the provider talks to a server at `strata.baseUrl` (every provider but the editor's own models).
 */
export function providerErrorActions(code: string, usesBaseUrl = true): BannerAction[] {
  if (code === 'bad-key') return ['setApiKey', 'retry'];
  if (code === 'unknown-model' || code === 'not-configured') return ['selectModel', 'openSettings'];
  if (code === 'network' && usesBaseUrl) return ['retry', 'editBaseUrl', 'showLog'];
  return ['retry', 'showLog'];
}

/** The setting Edit Base URL opens: the one address every server-backed provider is reached at. */
export const BASE_URL_SETTING = 'strata.baseUrl';

/** The preview card's explanation under a request that was built but not sent. */
export function notSentHowTo(problem: string): string {
  return [
    `**Nothing was sent.** ${problem}`,
    '',
    'Above is the exact request Strata would send. To send it, either:',
    '- pick a model the editor offers (**Strata: Select Model**),',
    '- set `strata.provider` to `openai` or `anthropic` and run **Strata: Set API Key** (or set `OPENAI_API_KEY` / `ANTHROPIC_API_KEY` in the environment),',
    '- or point `strata.baseUrl` at a local OpenAI-compatible server such as Ollama (`http://127.0.0.1:11434/v1`), which needs no key.',
  ].join('\n');
}
