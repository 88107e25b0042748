import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { runReplay, ArgError } from '../../../bench/replay';
import { parseArgs } from '../../../bench/replayCli';
import { loadTrajectory } from '../../../bench/replay';
import { compileGlob as globToRegExp } from '../../../src/common/glob';
import { IsolationPolicy, normalizeRelativePath } from '../../../src/engine/isolation';
import { extractBody } from '../../../src/engine/render';
import { captureReplay } from '../../support/replayCli';
import { tempDir } from '../../support/tempDir';

const root = path.resolve(__dirname, '../../../..');
const fixtures = path.join(root, 'test/fixtures/trajectories');
const trajectories = fs
  .readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .sort();

const capture = captureReplay;

const tmp = (): string => tempDir('strata-replay-');

describe('isolation', () => {
  it('globs match dot files, span folders with ** and stay case-sensitive', () => {
    assert.ok(globToRegExp('**/.env').test('.env'));
    assert.ok(globToRegExp('**/.env').test('a/b/.env'));
    assert.ok(!globToRegExp('**/.env').test('a/.envrc'));
    assert.ok(globToRegExp('**/.env.*').test('config/.env.local'));
    assert.ok(globToRegExp('**/.ssh/**').test('home/.ssh/id_rsa'));
    assert.ok(globToRegExp('**/*.pem').test('.pem'));
    assert.ok(!globToRegExp('**/*.pem').test('a/key.PEM'));
    assert.ok(globToRegExp('src/*.{ts,js}').test('src/a.js'));
    assert.ok(!globToRegExp('src/*.ts').test('src/a/b.ts'));
  });

  it('normalizes workspace-relative paths and refuses ones that leave the workspace', () => {
    assert.strictEqual(normalizeRelativePath('./src//a.ts'), 'src/a.ts');
    assert.strictEqual(normalizeRelativePath('src\\a.ts'), 'src/a.ts');
    assert.strictEqual(normalizeRelativePath('src/../a.ts'), 'a.ts');
    for (const bad of ['../x', '/etc/passwd', 'C:/x', 'src/../../x', '', '.', '~/x'])
      assert.strictEqual(normalizeRelativePath(bad), undefined, bad);
  });

  it('rejects binary and too-large content with a clear message', () => {
    const p = new IsolationPolicy(undefined, 10);
    assert.strictEqual(p.checkContent('a\u0000b', 'x.bin')!.reason, 'binary');
    assert.strictEqual(p.checkContent('a\u0000b', 'x.bin')!.message, 'x.bin is binary; only text files can be attached.');
    const big = p.checkContent('ü'.repeat(6), 'u.txt')!;
    assert.strictEqual(big.reason, 'too-large');
    assert.strictEqual(big.message, 'u.txt is 12 bytes (limit 10 bytes); nothing of it was sent.');
    assert.deepStrictEqual([big.bytes, big.limit], [12, 10]);
    assert.strictEqual(p.checkContent('ü'.repeat(5), 'u.txt'), undefined);
  });

  it('replay rejects attachments outside the workspace, excluded, binary, too large or missing, and sends none of them', () => {
    const dir = tmp();
    const report = runReplay(loadTrajectory(path.join(root, 'test/fixtures/trajectories-extra/isolation.json')), {
      ...parseArgs(['x.json']),
      requestsDir: dir,
    });
    const t1 = report.strategies[0].turns[0];
    assert.deepStrictEqual(t1.rejections, [
      { attachment: '../outside.ts', reason: 'outside-workspace' },
      { attachment: '/etc/passwd', reason: 'outside-workspace' },
      { attachment: 'src/../../x.ts', reason: 'outside-workspace' },
      { attachment: '.env', reason: 'excluded' },
      { attachment: 'config/.env.local', reason: 'excluded' },
      { attachment: 'keys/server.pem', reason: 'excluded' },
      { attachment: 'home/.ssh/id_rsa', reason: 'excluded' },
      { attachment: '.git/config', reason: 'excluded' },
      { attachment: 'bin/blob.dat', reason: 'binary' },
      { attachment: 'big.txt', reason: 'too-large' },
      { attachment: 'src/missing.ts', reason: 'not-found' },
      { attachment: 'src/ok.ts#L5-L9', reason: 'not-found' },
    ]);
    const t2 = report.strategies[0].turns[1];
    assert.deepStrictEqual(t2.rejections, [
      { attachment: 'src/nope.ts', reason: 'not-found' },
      { attachment: 'src/ok.ts#L1-L1', reason: 'not-found' },
    ]);
    const dump = fs.readFileSync(path.join(dir, 'turn-001.json'), 'utf8');
    assert.ok(dump.includes('export const ok = true;'));
    for (const secret of ['sk-should-never-leave', 'SECRET=1', 'PRIVATE KEY', 'ssh key', '[core]', '0123456789abcdef0123'])
      assert.ok(!dump.includes(secret), secret);
  });
});

describe('replay CLI', () => {
  it('exits 2 with a message on bad arguments and invalid trajectories', async () => {
    const cases: [string[], RegExp][] = [
      [[], /usage: npm run replay/],
      [['a.json', '--strategy', 'nope'], /unknown strategy "nope"/],
      [['a.json', '--layout', 'grid'], /--layout must be library or transcript/],
      [['a.json', '--policy', 'x'], /--policy must be/],
      [['a.json', '--cache', 'x'], /--cache must be/],
      [['a.json', '--reload-at', '0'], /--reload-at needs a turn number/],
      [['a.json', '--layout', 'library', '--strategy', 'transcript'], /either --layout or --strategy/],
      [['a.json', '--provider', 'openai'], /--provider needs --base-url and --model/],
      [['a.json', '--bogus'], /unknown flag --bogus/],
      [['/nonexistent/t.json'], /cannot read \/nonexistent\/t.json/],
    ];
    for (const [argv, re] of cases) {
      const r = await capture(argv);
      assert.strictEqual(r.code, 2, argv.join(' '));
      assert.match(r.err, re);
    }
    const dir = tmp();
    const bad: [unknown, RegExp][] = [
      ['{', /is not valid JSON/],
      [{ name: 'x' }, /"model" must be an object/],
      [
        { name: 'x', model: { id: 'm', contextWindow: 100, maxOutputTokens: 10, encoding: 'p50k' }, system: '', files: {}, turns: [] },
        /"model.encoding"/,
      ],
      [
        {
          name: 'x',
          model: { id: 'm', contextWindow: 100, maxOutputTokens: 10, encoding: 'o200k_base' },
          system: '',
          files: {},
          turns: [{ user: 'u' }],
        },
        /turns\[0\]\.reply must be a string/,
      ],
      [
        {
          name: 'x',
          model: { id: 'm', contextWindow: 100, maxOutputTokens: 10, encoding: 'o200k_base' },
          system: '',
          files: {},
          turns: [{ user: 'u', reply: 'r', attach: [{ selection: { file: 'a', startLine: 3, endLine: 1 } }] }],
        },
        /1 <= startLine <= endLine/,
      ],
      [
        {
          name: 'x',
          model: { id: 'm', contextWindow: 100, maxOutputTokens: 10, encoding: 'o200k_base' },
          system: '',
          files: { a: { repeat: 'x' } },
          turns: [{ user: 'u', reply: 'r' }],
        },
        /files\["a"\] must be a string/,
      ],
    ];
    for (const [content, re] of bad) {
      const f = path.join(dir, 't.json');
      fs.writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
      const r = await capture([f]);
      assert.strictEqual(r.code, 2);
      assert.match(r.err, re);
    }
  });

  it('writes one dump per turn in the contract format; several strategies go to subfolders', async () => {
    const dir = tmp();
    const r = await capture([path.join(fixtures, 'walkthrough-6.json'), '--strategy', 'library,transcript', '--requests', dir, '--json']);
    assert.strictEqual(r.code, 0, r.err);
    assert.deepStrictEqual(fs.readdirSync(dir).sort(), ['library', 'transcript']);
    const files = fs.readdirSync(path.join(dir, 'transcript')).sort();
    assert.deepStrictEqual(files, ['turn-001.json', 'turn-002.json', 'turn-003.json', 'turn-004.json', 'turn-005.json', 'turn-006.json']);
    const text = fs.readFileSync(path.join(dir, 'transcript', 'turn-002.json'), 'utf8');
    const obj = JSON.parse(text);
    assert.strictEqual(text, JSON.stringify(obj, null, 2) + '\n');
    assert.deepStrictEqual(Object.keys(obj), ['turn', 'messages']);
    assert.strictEqual(obj.turn, 2);
    for (const m of obj.messages) {
      assert.deepStrictEqual(Object.keys(m), ['role', 'content']);
      for (const b of m.content) {
        assert.deepStrictEqual(
          Object.keys(b).filter((k) => k !== 'cacheBreakpoint'),
          ['type', 'text'],
        );
        if ('cacheBreakpoint' in b) assert.strictEqual(b.cacheBreakpoint, true);
      }
    }
    const single = tmp();
    await capture([path.join(fixtures, 'walkthrough-6.json'), '--requests', single]);
    assert.ok(fs.existsSync(path.join(single, 'turn-001.json')));
  });

  it('the JSON report has the contract shape; layers add up to promptTokens; timings only under timings', async () => {
    const r = await capture([
      path.join(fixtures, 'long-session-20.json'),
      '--strategy',
      'library,transcript,inline-every-turn,latest-copy',
      '--json',
    ]);
    assert.strictEqual(r.code, 0, r.err);
    const rep = JSON.parse(r.out);
    assert.deepStrictEqual(Object.keys(rep), ['trajectory', 'strategies', 'timings']);
    assert.deepStrictEqual(
      rep.strategies.map((s: { name: string }) => s.name),
      ['library', 'transcript', 'inline-every-turn', 'latest-copy'],
    );
    for (const s of rep.strategies) {
      assert.deepStrictEqual(Object.keys(s), ['name', 'turns', 'totals', 'efficiency', 'costUnits']);
      assert.strictEqual(s.turns.length, 20);
      for (const t of s.turns) {
        assert.deepStrictEqual(
          Object.keys(t).filter((k) => k !== 'prefixBreakReason'),
          ['turn', 'layers', 'promptTokens', 'cached', 'limit', 'rejections', 'pruned', 'prefixBreak', 'violations', 'budget'],
        );
        assert.strictEqual(t.budget, 122904);
        if ('prefixBreakReason' in t) assert.strictEqual(t.prefixBreak, true);
        const sum = Object.values(t.layers as Record<string, number>).reduce((a, b) => a + b, 0);
        assert.strictEqual(sum, t.promptTokens, `${s.name} turn ${t.turn}`);
        assert.ok(t.cached.openai <= t.promptTokens && t.cached.openai % 128 === 0);
      }
    }
    const noTimings = JSON.stringify(rep.strategies);
    assert.ok(!/ms"|Ms"|time/i.test(noTimings), 'no timings outside "timings"');
    // The default layout reaches the physical limit when nothing is pruned; costs ≤ 0.35× inline-every-turn.
    const transcript = rep.strategies[1];
    assert.strictEqual(transcript.efficiency.openai, 1);
    assert.strictEqual(transcript.efficiency.anthropic, 1);
    assert.ok(transcript.costUnits.openai <= 0.35 * rep.strategies[2].costUnits.openai);
    assert.ok(transcript.costUnits.anthropic <= 0.35 * rep.strategies[2].costUnits.anthropic);
  });

  for (const f of trajectories) {
    for (const layout of ['library', 'transcript']) {
      it(`${f} (${layout}): zero violations, every version's content once per request, dumps equal across runs`, async () => {
        const dir1 = tmp();
        const dir2 = tmp();
        const r1 = await capture([path.join(fixtures, f), '--layout', layout, '--requests', dir1, '--json']);
        assert.strictEqual(r1.code, 0, r1.err);
        const rep = JSON.parse(r1.out);
        assert.strictEqual(rep.strategies[0].totals.violations, 0);
        await capture([path.join(fixtures, f), '--layout', layout, '--requests', dir2]);
        for (const name of fs.readdirSync(dir1)) {
          const a = fs.readFileSync(path.join(dir1, name), 'utf8');
          assert.strictEqual(a, fs.readFileSync(path.join(dir2, name), 'utf8'), `${name} differs between runs`);
          const req = JSON.parse(a) as { messages: { content: { text: string }[] }[] };
          const bodies = new Map<string, number>();
          for (const m of req.messages)
            for (const b of m.content) {
              if (!/^<(file|selection) id="/.test(b.text) || / format="(diff|preview)"/.test(b.text.split('\n')[0])) continue;
              const body = extractBody(b.text);
              assert.notStrictEqual(body, undefined, 'a block that cannot be taken apart');
              const key = b.text.split('\n')[0];
              bodies.set(key, (bodies.get(key) ?? 0) + 1);
            }
          for (const [k, n] of bodies) assert.strictEqual(n, 1, `${name}: ${k} sent ${n} times`);
        }
      });
    }
  }

  it('parseArgs defaults to the transcript layout, both caches, append-version', () => {
    const a = parseArgs(['t.json']);
    assert.deepStrictEqual([a.strategies, a.cache, a.policy, a.json], [['transcript'], 'both', 'append-version', false]);
    assert.throws(() => parseArgs(['a', 'b']), ArgError);
    assert.deepStrictEqual(parseArgs(['t.json', '--strategy=library,latest-copy']).strategies, ['library', 'latest-copy']);
  });
});
