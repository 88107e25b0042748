/**
 * test/unit mirrors the code it tests (CONTRIBUTING.md): `test/unit/<dir>/<name>.test.ts` tests a
 * module of `src/<dir>/` (`bench/`, `scripts/` and `webview/` mirror `bench/`, `scripts/` and
 * `webview-ui/`). Its name is the module's (`chatStore.test.ts`), the module's and an aspect
 * (`chatStoreStress.test.ts`), or the folder's (`tokenizerChunks.test.ts` in `tokenizer/`). A suite
 * that follows a path through several modules, and no one module, is named below with its reason.
 * `package/` checks the repository's own files (the manifest, the docs), not a source module.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withTempDir } from '../../support/tempDir';

const root = path.resolve(__dirname, '../../../..');

/** Suites across modules, by path under test/unit, with the reason each has no one module. */
const CROSS_CUTTING: Record<string, string> = {
  'regexSafety.test.ts': 'every regular expression over workspace text or model output, in all of src/',
  'engine/golden.test.ts': 'the golden request snapshots of every trajectory through the whole engine',
  'engine/adversarial.test.ts': 'content that tries to forge blocks, through rendering, budget and isolation',
  'engine/managers.test.ts': 'the attachment and the history managers, one suite for the two',
  'engine/steppedBuild.test.ts': 'a first build cut many times, in steps, against the build at once',
  'engine/longInputHints.test.ts': 'the build hints of long texts, from the engine to the editor’s driver',
  'engine/summarySearch.test.ts': 'pruning that summarizes hundreds of turns in one build',
  'host/treeNodes.test.ts': 'the Context Layers tree of a chat just opened, from the session to the rows',
  'host/predictedCacheViews.test.ts': 'one predicted-cache figure in the tree, the document, the bar and the server',
  'services/toolLoop.test.ts': 'a turn’s tool loop: pipeline, executor and both providers over real HTTP',
  'services/toolSteps.test.ts': 'tool steps through the engine and the turn pipeline',
  'services/toolTurnCost.test.ts': 'a tool turn’s usage per step, from the servers to the turn’s metadata',
  'services/twoWindows.test.ts': 'two windows on one store: sessions, pipeline and store',
  'services/slicedOpen.test.ts': 'opening a long chat in slices: store, session and meter',
  'services/requestTokens.test.ts': 'every trajectory’s layers against its messages’ token count',
  'services/modelWindow.test.ts': 'a model’s window from the user, the server and the table to the request',
  'services/providers/imitationTools.test.ts': 'the imitation servers’ tool calls, which the provider tests rely on',
  'services/providers/imitationIdentity.test.ts': 'the imitation servers saying who they are',
  'services/providers/agentLoopDecision.test.ts': 'a library’s agent loop measured against the pipeline’s (a decision record)',
  'services/tools/hostileInput.test.ts': 'hostile input through the glob matcher and the isolation rules',
  'services/codeIntel/codeTools.test.ts': 'the code-intelligence tools through the executor over TypeScript’s service',
  'services/codeIntel/definitionMisses.test.ts': 'uses a first scan missed, resolved by TypeScript’s service',
  'services/codeIntel/replayCodeIntel.test.ts': 'code intelligence in the replay’s trajectories',
  'services/codeIntel/importedNames.test.ts': 'the names an import brings in, from the statement to the chip',
  'webview/replyLayout.test.ts': 'tool steps in a reply’s text, across the panel’s widgets',
  'bench/fixturesSync.test.ts': 'the trajectories copied into test/fixtures against their source',
};

const MIRRORS: Record<string, string> = { bench: 'bench', scripts: 'scripts', webview: 'webview-ui' };

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** The test files (paths under test/unit, `/`-separated) that mirror no module and are not listed above. */
export function unmirrored(testRoot: string, repoRoot: string, listed: Readonly<Record<string, string>>): string[] {
  const missing: string[] = [];
  for (const file of testFiles(testRoot)) {
    const rel = path.relative(testRoot, file).split(path.sep).join('/');
    const parts = rel.split('/');
    const name = parts.pop()!.replace(/\.test\.ts$/, '');
    if (parts[0] === 'package' || rel in listed) continue;
    const dir = parts.length > 0 && parts[0] in MIRRORS ? [MIRRORS[parts[0]], ...parts.slice(1)] : ['src', ...parts];
    const codeDir = path.join(repoRoot, ...dir);
    const modules = fs.existsSync(codeDir)
      ? fs
          .readdirSync(codeDir)
          .filter((f) => /\.(ts|js|mjs|cjs)$/.test(f) && !f.endsWith('.d.ts'))
          .map((f) => f.replace(/\.[^.]+$/, ''))
      : [];
    const names = [...modules, dir[dir.length - 1]];
    const mirrors = names.some((m) => name === m || (name.startsWith(m) && /^[A-Z]/.test(name.slice(m.length))));
    if (!mirrors) missing.push(rel);
  }
  return missing.sort();
}

describe('test/unit mirrors the code it tests', () => {
  it('every unit test file is named after a module of its mirrored folder, or listed with its reason', () => {
    assert.deepEqual(unmirrored(path.join(root, 'test/unit'), root, CROSS_CUTTING), []);
  });

  it('lists only suites that exist', () => {
    const gone = Object.keys(CROSS_CUTTING).filter((rel) => !fs.existsSync(path.join(root, 'test/unit', rel)));
    assert.deepEqual(gone, []);
  });

  it('reports a test at the root of test/unit, or named after no module, and accepts an aspect suite', () => {
    withTempDir('strata-mirror-', (tmp) => {
      for (const f of ['src/services/store/chatStore.ts', 'src/services/pricing/prices.ts']) {
        fs.mkdirSync(path.dirname(path.join(tmp, f)), { recursive: true });
        fs.writeFileSync(path.join(tmp, f), '');
      }
      for (const t of [
        'services/store/chatStoreStress.test.ts',
        'services/store/chatstorey.test.ts',
        'pricing.test.ts',
        'services/pricing/pricing.test.ts',
      ]) {
        fs.mkdirSync(path.dirname(path.join(tmp, 'test/unit', t)), { recursive: true });
        fs.writeFileSync(path.join(tmp, 'test/unit', t), '');
      }
      assert.deepEqual(unmirrored(path.join(tmp, 'test/unit'), tmp, {}), ['pricing.test.ts', 'services/store/chatstorey.test.ts']);
    });
  });
});
