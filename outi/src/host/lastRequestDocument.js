"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.lastRequestDocument = lastRequestDocument;
/**
 * "Strata: Show Last Request": the exact request of the last turn as a read-only JSONC document —
 * a commented ledger summary on top, then the request in DESIGN §9's dump form (roles, blocks, cache
 * breakpoints), whose strings JSON-decode to exactly the bytes that were sent. API keys and settings
 * never appear in it: it is built from the envelope, which holds neither.
 */
const types_1 = require("../engine/types");
const ledgerTree_1 = require("../services/ledgerTree");
function lastRequestDocument(r) {
    const env = r.envelope;
    const layers = types_1.LAYER_IDS.map((id, i) => `${id} ${(0, ledgerTree_1.fmt)(env.layers[i]?.tokens ?? 0)}`).join(' · ');
    const reported = r.usage ? `${(0, ledgerTree_1.fmt)(r.usage.cacheRead)} reported by the provider (input ${(0, ledgerTree_1.fmt)(r.usage.input)}, cache write ${(0, ledgerTree_1.fmt)(r.usage.cacheWrite)}, output ${(0, ledgerTree_1.fmt)(r.usage.output)})` : 'not reported';
    const lines = [
        `// Strata — the exact request of turn ${env.turn} (read-only)`,
        `// Provider: ${r.status === 'preview' ? 'none (preview: nothing was sent)' : r.model}`,
        `// Outcome: ${r.status}`,
        `// Prompt: ${(0, ledgerTree_1.fmt)(env.totalTokens)} tokens of the ${(0, ledgerTree_1.fmt)(env.budget)}-token budget (${(0, ledgerTree_1.percent)(env.totalTokens, env.budget)})`,
        `// Layers: ${layers}`,
        `// Cached: ${(0, ledgerTree_1.fmt)(env.ledger.cachedTokens)} predicted; ${reported}`,
        `// Prefix: ${env.prefixBreak ? `changed (${env.prefixBreakReason ?? 'unknown'})` : 'the previous request is kept as a prefix'}`,
    ];
    for (const p of env.pruned)
        lines.push(`// Cut: ${p.item} (${p.layer}) ${p.reason}: ${(0, ledgerTree_1.fmt)(p.preTokens)} → ${(0, ledgerTree_1.fmt)(p.postTokens)} tokens; kept ${p.kept}; lost ${p.lost}`);
    lines.push('// Below: the messages byte for byte (JSON strings); "cacheBreakpoint": true ends a prefix the provider may cache.', '');
    const body = { turn: env.turn, layout: env.layout, provider: r.provider, model: r.model, messages: env.messages };
    return `${lines.join('\n')}${JSON.stringify(body, null, 2)}\n`;
}
//# sourceMappingURL=lastRequestDocument.js.map