"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The imitation servers say who they are (so the panel can label the model as the local imitation):
 * every response carries `x-strata-imitation: 1`, the OpenAI imitation's models are owned by
 * `strata-imitation`, and `replyFor` builds a reply from the request.
 */
const assert = __importStar(require("node:assert/strict"));
const imitationServers_1 = require("../support/imitationServers");
async function readAll(res) {
    return res.text();
}
describe('imitation servers identify themselves', () => {
    let openai;
    let anthropic;
    const seen = [];
    before(async () => {
        openai = await (0, imitationServers_1.startOpenAIImitation)({
            models: ['gpt-4o'],
            replyFor: (r) => {
                seen.push(r);
                return `echo ${r.messages.length} ${r.model}`;
            },
        });
        anthropic = await (0, imitationServers_1.startAnthropicImitation)({});
    });
    after(async () => {
        await openai.close();
        await anthropic.close();
    });
    it('OpenAI: GET /v1/models is owned by strata-imitation and carries the header', async () => {
        const res = await fetch(`${openai.url}/models`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get(imitationServers_1.IMITATION_HEADER), '1');
        const body = (await res.json());
        assert.deepEqual(body.data.map((m) => [m.id, m.owned_by]), [['gpt-4o', imitationServers_1.IMITATION_OWNER]]);
    });
    it('OpenAI: streamed and error responses carry the header; replyFor sees the request', async () => {
        const ok = await fetch(`${openai.url}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
        });
        assert.equal(ok.headers.get(imitationServers_1.IMITATION_HEADER), '1');
        const text = await readAll(ok);
        assert.match(text, /"content":"echo 1"/);
        assert.equal(seen.length, 1);
        assert.equal(seen[0].model, 'gpt-4o');
        assert.deepEqual(seen[0].messages, [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
        assert.ok(seen[0].promptTokens > 0);
        assert.equal(seen[0].cachedTokens, 0);
        const unknown = await fetch(`${openai.url}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'other', messages: [{ role: 'user', content: 'hello' }] }),
        });
        assert.equal(unknown.status, 404);
        assert.equal(unknown.headers.get(imitationServers_1.IMITATION_HEADER), '1');
        await readAll(unknown);
    });
    it('Anthropic: models, messages and errors carry the header', async () => {
        const models = await fetch(`${anthropic.url}/v1/models`);
        assert.equal(models.headers.get(imitationServers_1.IMITATION_HEADER), '1');
        await readAll(models);
        const ok = await fetch(`${anthropic.url}/v1/messages`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': 'any' },
            body: JSON.stringify({ model: 'claude-x', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get(imitationServers_1.IMITATION_HEADER), '1');
        await readAll(ok);
        const bad = await fetch(`${anthropic.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        assert.equal(bad.status, 400);
        assert.equal(bad.headers.get(imitationServers_1.IMITATION_HEADER), '1');
        await readAll(bad);
    });
});
//# sourceMappingURL=imitationIdentity.test.js.map