/**
 * The provider registry: every provider of the catalog has every part (client, model list, cache
 * and price rules, key handling, default origin), every layer takes its list from the catalog, and
 * a provider that speaks an existing wire format is spelled in one entry of each of the two records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  KEYED_PROVIDERS,
  LOCAL_SERVER_PROVIDERS,
  PROVIDER_CATALOG,
  PROVIDER_NAMES,
  PROVIDER_SETTINGS,
  isKeyedProvider,
  isProviderName,
} from '../../../../src/common/providerCatalog';
import { PROVIDER_MODULES, createProvider } from '../../../../src/services/providers';
import { PRICE_TABLE } from '../../../../src/services/pricing/prices';
import { PUBLIC_ORIGINS } from '../../../../src/host/providers/endpointOrigin';
import { parseWebviewRequest } from '../../../../src/protocol/requests';
import { ProtocolError } from '../../../../src/protocol/messages';

const root = path.resolve(__dirname, '..', '..', '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.ts$/.test(e.name) ? [rel] : [];
  });
}

describe('provider registry', () => {
  it('lists the six providers in order: two keyed, four local servers', () => {
    assert.deepEqual(PROVIDER_NAMES, ['openai', 'anthropic', 'ollama', 'lmstudio', 'llamacpp', 'vllm']);
    assert.deepEqual(KEYED_PROVIDERS, ['openai', 'anthropic']);
    assert.deepEqual(LOCAL_SERVER_PROVIDERS, ['ollama', 'lmstudio', 'llamacpp', 'vllm']);
    assert.deepEqual(PROVIDER_SETTINGS, ['auto', 'vscode-lm', ...PROVIDER_NAMES]);
    assert.equal(isProviderName('vllm'), true);
    assert.equal(isProviderName('toString'), false, 'no inherited property is a provider');
    assert.equal(isKeyedProvider('ollama'), false);
  });

  it('gives every provider a module with every part, and a client that says which provider it is', () => {
    assert.deepEqual(Object.keys(PROVIDER_MODULES), PROVIDER_NAMES);
    for (const p of PROVIDER_NAMES) {
      const m = PROVIDER_MODULES[p];
      assert.equal(typeof m.create, 'function', p);
      assert.equal(typeof m.listModels, 'function', p);
      assert.ok(['openai', 'anthropic', 'server'].includes(m.cacheRules), `${p}: ${m.cacheRules}`);
      const client = createProvider(p, { apiKey: 'k', contextWindow: 8192 });
      assert.equal(client.kind, p);
      assert.equal(client.supportsTools, true, `${p} offers tools`);
      const entry = PROVIDER_CATALOG[p];
      assert.ok(client.label.startsWith(entry.name), `${p}: ${client.label}`);
      assert.equal(m.cacheRules === 'server', entry.localServer, `${p}: a local server's cache is never billed`);
      assert.equal(PUBLIC_ORIGINS[p], entry.defaultRoot, `${p}: the origin a workspace choice is checked against`);
      assert.equal('key' in entry, !entry.localServer, `${p}: keyed exactly when not a local server`);
    }
  });

  it('prices exactly the providers whose rows the table has', () => {
    const priced = new Set(PRICE_TABLE.map((r) => r.provider));
    for (const p of PROVIDER_NAMES) assert.equal(PROVIDER_MODULES[p].priced, priced.has(p as never), p);
  });

  it('the panel may choose any provider of the catalog, and nothing else', () => {
    for (const p of PROVIDER_NAMES) {
      const r = parseWebviewRequest({ kind: 'selectModel', provider: p, model: 'm' });
      assert.deepEqual(r, { kind: 'selectModel', provider: p, model: 'm' });
    }
    assert.ok(parseWebviewRequest({ kind: 'selectModel', provider: 'evil', model: 'm' }) instanceof ProtocolError);
  });

  it('adding a provider of an existing wire format is one catalog entry and one registry entry in src/', () => {
    // The three OpenAI-wire local servers are the proof: their ids are spelled nowhere else in src/ or webview-ui/.
    const files = [...sourceFiles('src'), ...sourceFiles('webview-ui')];
    for (const id of ['lmstudio', 'llamacpp', 'vllm']) {
      const spelled = files.filter((f) =>
        new RegExp(`['"\`]${id}['"\`]|^\\s*${id}:`, 'm').test(fs.readFileSync(path.join(root, f), 'utf8')),
      );
      assert.deepEqual(spelled, ['src/common/providerCatalog.ts', 'src/services/providers/registry.ts'], id);
    }
  });
});
