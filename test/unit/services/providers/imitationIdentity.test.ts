/**
 * The imitation servers say who they are (so the panel can label the model as the local imitation):
 * every response carries `x-strata-imitation: 1`, the OpenAI imitation's models are owned by
 * `strata-imitation`, and `replyFor` builds a reply from the request.
 */
import * as assert from 'node:assert/strict';
import {
  IMITATION_HEADER,
  IMITATION_OWNER,
  startAnthropicImitation,
  startOpenAIImitation,
  type AnthropicImitationServer,
  type OpenAIImitationServer,
  type ReplyContext,
} from '../../../support/imitationServers';

async function readAll(res: Response): Promise<string> {
  return res.text();
}

describe('imitation servers identify themselves', () => {
  let openai: OpenAIImitationServer;
  let anthropic: AnthropicImitationServer;
  const seen: ReplyContext[] = [];

  before(async () => {
    openai = await startOpenAIImitation({
      models: ['gpt-4o'],
      replyFor: (r) => {
        seen.push(r);
        return `echo ${r.messages.length} ${r.model}`;
      },
    });
    anthropic = await startAnthropicImitation({});
  });
  after(async () => {
    await openai.close();
    await anthropic.close();
  });

  it('OpenAI: GET /v1/models is owned by strata-imitation and carries the header', async () => {
    const res = await fetch(`${openai.url}/models`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get(IMITATION_HEADER), '1');
    const body = (await res.json()) as { data: { id: string; owned_by: string }[] };
    assert.deepEqual(
      body.data.map((m) => [m.id, m.owned_by]),
      [['gpt-4o', IMITATION_OWNER]],
    );
  });

  it('OpenAI: streamed and error responses carry the header; replyFor sees the request', async () => {
    const ok = await fetch(`${openai.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(ok.headers.get(IMITATION_HEADER), '1');
    const text = await readAll(ok);
    assert.match(text, /"content":"echo 1"/);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].model, 'gpt-4o');
    assert.deepEqual(seen[0].messages, [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    assert.equal(seen[0].promptTokens, 7);
    assert.equal(seen[0].cachedTokens, 0);

    const unknown = await fetch(`${openai.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'other', messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get(IMITATION_HEADER), '1');
    await readAll(unknown);
  });

  it('Anthropic: models, messages and errors carry the header', async () => {
    const models = await fetch(`${anthropic.url}/v1/models`);
    assert.equal(models.headers.get(IMITATION_HEADER), '1');
    await readAll(models);
    const ok = await fetch(`${anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'any' },
      body: JSON.stringify({ model: 'claude-x', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get(IMITATION_HEADER), '1');
    await readAll(ok);
    const bad = await fetch(`${anthropic.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get(IMITATION_HEADER), '1');
    await readAll(bad);
  });
});
