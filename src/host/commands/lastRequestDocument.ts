/**
 * "Strata: Show Last Request": the exact request of the last turn as a read-only JSONC document —
 * a commented ledger summary on top, then the request in its dump form (roles, blocks, cache
 * breakpoints), whose strings JSON-decode to exactly the bytes that were sent. API keys and settings
 * never appear in it: it is built from the envelope, which holds neither.
 */
import { LAYER_IDS } from '../../engine/types';
import { providerCachePrediction } from '../../services/cacheModel';
import { percent, fmt } from '../../services/ledgerTree';
import type { WholeRequest } from '../views/sentRequests';

export function lastRequestDocument(r: WholeRequest): string {
  const env = r.envelope;
  const layers = LAYER_IDS.map((id, i) => `${id} ${fmt(env.layers[i]?.tokens ?? 0)}`).join(' · ');
  const reported = r.usage
    ? `${fmt(r.usage.cacheRead)} reported by the provider (input ${fmt(r.usage.input)}, cache write ${fmt(r.usage.cacheWrite)}, output ${fmt(r.usage.output)})`
    : 'not reported';
  const lines = [
    `// Strata — the exact request of turn ${env.turn} (read-only)`,
    `// Provider: ${r.status === 'preview' ? 'none (preview: nothing was sent)' : r.model}`,
    `// Outcome: ${r.status}`,
    `// Prompt: ${fmt(env.totalTokens)} tokens of the ${fmt(env.budget)}-token budget (${percent(env.totalTokens, env.budget)})`,
    `// Layers: ${layers}`,
    `// Cached: ${fmt(providerCachePrediction(r.provider, env.ledger.cachedTokens))} predicted; ${reported}`,
    `// Prefix: ${env.prefixBreak ? `changed (${env.prefixBreakReason ?? 'unknown'})` : 'the previous request is kept as a prefix'}`,
  ];
  for (const p of env.pruned)
    lines.push(
      `// Cut: ${p.item} (${p.layer}) ${p.reason}: ${fmt(p.preTokens)} → ${fmt(p.postTokens)} tokens; kept ${p.kept}; lost ${p.lost}`,
    );
  lines.push('// Below: the messages byte for byte (JSON strings); "cacheBreakpoint": true ends a prefix the provider may cache.', '');
  const body = { turn: env.turn, layout: env.layout, provider: r.provider, model: r.model, messages: env.messages };
  return `${lines.join('\n')}${JSON.stringify(body, null, 2)}\n`;
}
