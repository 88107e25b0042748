/** Which file a reply's code block goes to (src/services/apply/applyTarget.ts). */
import * as assert from 'node:assert/strict';
import {
  bestMatchingFile,
  chooseTarget,
  looksLikePath,
  matchScore,
  pathFromFenceInfo,
  pathFromLineAbove,
} from '../../../../src/services/apply/applyTarget';

const MATH =
  'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n';
const STRINGS = 'export function shout(s: string): string {\n  return s.toUpperCase();\n}\n';

describe('apply: target selection', () => {
  it('reads a path from the fence info in its usual spellings', () => {
    assert.equal(pathFromFenceInfo('ts src/a.ts'), 'src/a.ts');
    assert.equal(pathFromFenceInfo('ts title="src/a.ts"'), 'src/a.ts');
    assert.equal(pathFromFenceInfo("python file='pkg/mod.py'"), 'pkg/mod.py');
    assert.equal(pathFromFenceInfo('ts:src/a.ts'), 'src/a.ts');
    assert.equal(pathFromFenceInfo('src/a.ts'), 'src/a.ts');
    assert.equal(pathFromFenceInfo('ts ./src/a.ts'), 'src/a.ts');
    assert.equal(pathFromFenceInfo('sh app/.env'), 'app/.env');
    assert.equal(pathFromFenceInfo('text ../outside/secret.txt'), '../outside/secret.txt');
    assert.equal(pathFromFenceInfo('ts'), undefined);
    assert.equal(pathFromFenceInfo(''), undefined);
    assert.equal(pathFromFenceInfo('diff'), undefined);
  });

  it('reads a path from the line above: backticked (explicit) or in prose', () => {
    assert.deepEqual(pathFromLineAbove('`src/a.ts`:'), { path: 'src/a.ts', explicit: true });
    assert.deepEqual(pathFromLineAbove('In src/a.ts:'), { path: 'src/a.ts', explicit: false });
    assert.deepEqual(pathFromLineAbove('Change **`lib/util.py`** like this:'), { path: 'lib/util.py', explicit: true });
    assert.deepEqual(pathFromLineAbove('Update `src/a.ts:12-20` as follows'), { path: 'src/a.ts', explicit: true });
    assert.equal(pathFromLineAbove('Here is the fix.'), undefined);
    assert.equal(pathFromLineAbove('See https://example.com/x.ts for details'), undefined);
  });

  it('tells paths from URLs, versions and words', () => {
    assert.ok(looksLikePath('src/a.ts'));
    assert.ok(looksLikePath('README.md'));
    assert.ok(looksLikePath('src/lib'));
    assert.ok(looksLikePath('.env'));
    assert.ok(looksLikePath('../../x.ts'));
    assert.ok(!looksLikePath('1.2.3'));
    assert.ok(!looksLikePath('http://x.y/a.ts'));
    assert.ok(!looksLikePath('hello'));
    assert.ok(!looksLikePath('two words.ts'));
  });

  it('scores a block against files by shared lines and identifiers', () => {
    const block = 'export function mul(a: number, b: number): number {\n  return b * a;\n}';
    assert.ok(matchScore(block, MATH) > matchScore(block, STRINGS));
    assert.ok(matchScore(block, MATH) >= 0.35);
    assert.ok(matchScore(block, STRINGS) < 0.35);
    assert.equal(matchScore('', MATH), 0);
  });

  it('picks the best-matching attached file, or none when nothing matches well', () => {
    const files = [
      { path: 'src/strings.ts', content: STRINGS },
      { path: 'src/math.ts', content: MATH },
    ];
    assert.equal(bestMatchingFile('export function add(a: number, b: number): number {\n  return a + b + 0;\n}', files), 'src/math.ts');
    assert.equal(bestMatchingFile('SELECT * FROM users WHERE id = 1;', files), undefined);
  });

  it('chooses: named path first, then the attached match, else ask', () => {
    const attached = [{ path: 'src/math.ts', content: MATH }];
    const code = 'export function add(a: number, b: number): number {\n  return a + b;\n}';
    assert.deepEqual(chooseTarget({ code, info: 'ts src/other.ts', lineAbove: '' }, attached), {
      kind: 'named',
      path: 'src/other.ts',
      explicit: true,
    });
    assert.deepEqual(chooseTarget({ code, info: 'ts', lineAbove: 'In Node.js:' }, attached), {
      kind: 'named',
      path: 'Node.js',
      explicit: false,
      fallback: 'src/math.ts',
    });
    assert.deepEqual(chooseTarget({ code, info: 'ts', lineAbove: 'Like this:' }, attached), { kind: 'attached', path: 'src/math.ts' });
    assert.deepEqual(chooseTarget({ code: 'print("hi")', info: 'py', lineAbove: '' }, attached), { kind: 'ask' });
  });
});
