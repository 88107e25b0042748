import * as assert from 'node:assert/strict';
import { PromptContextEngine, type EngineOptions, type TurnInput } from '../../../src/engine/engine';
import { fileId, lineSpans, selectionId, sliceLines, versionKey } from '../../../src/engine/artifacts';
import { closingMarker, escapeAttribute, extractBody, renderFullBlock } from '../../../src/engine/render';
import { computeBudget, safetyMargin, validateThresholds, meterLevel, DEFAULT_THRESHOLDS } from '../../../src/engine/budget';
import { checkEnvelope, hashLayerSegments } from '../../../src/engine/invariants';
import { sha256Hex } from '../../../src/common/hash';
import { charTokenizer } from '../../support/charTokenizer';
import type { ChatMessage } from '../../../src/engine/types';

const tok = charTokenizer();
const hasher = { sha256Hex };

function engine(patch: Partial<EngineOptions> = {}): PromptContextEngine {
  return new PromptContextEngine({
    conversationId: 'c1',
    layout: 'transcript',
    policy: 'append-version',
    tokenizer: tok,
    system: 'SYS',
    limits: { contextWindow: 1_000_000, maxOutputTokens: 1000 },
    ...patch,
  });
}

function build(e: PromptContextEngine, input: TurnInput) {
  const env = e.buildTurn(input);
  const v = checkEnvelope(env, env.budget, { hasher, ...e.checkContext(), blocked: !!env.blocked });
  assert.deepStrictEqual(v, [], `invariant violations: ${JSON.stringify(v)}`);
  return env;
}

const file = (uri: string, content: string) => ({ kind: 'file' as const, uri, content });
const texts = (m: ChatMessage) => m.content.map((b) => b.text);

describe('artifacts', () => {
  it('derives ids and version keys as docs/design.md#artifacts writes them', () => {
    assert.strictEqual(fileId('src/a.ts'), 'file:src/a.ts');
    const h = sha256Hex('x');
    assert.strictEqual(selectionId('src/a.ts', { startLine: 3, endLine: 9 }, h), `sel:src/a.ts#L3-L9@${h.slice(0, 8)}`);
    assert.strictEqual(versionKey('file:src/a.ts', 1), 'file:src/a.ts');
    assert.strictEqual(versionKey('file:src/a.ts', 2), 'file:src/a.ts@v2');
  });

  it('splits lines on \\r\\n, \\n and \\r but not on U+2028/U+2029', () => {
    const t = 'a\r\nb\nc\rd\u2028e\u2029f';
    assert.deepStrictEqual(
      lineSpans(t).map(([s, e]) => t.slice(s, e)),
      ['a', 'b', 'c', 'd\u2028e\u2029f'],
    );
  });

  it('slices selections inclusively, without the final line break, clamping endLine', () => {
    const t = 'one\r\ntwo\nthree\rfour\n';
    assert.deepStrictEqual(sliceLines(t, { startLine: 2, endLine: 3 }), { content: 'two\nthree', range: { startLine: 2, endLine: 3 } });
    assert.deepStrictEqual(sliceLines(t, { startLine: 1, endLine: 1 }), { content: 'one', range: { startLine: 1, endLine: 1 } });
    // 5 lines: the trailing newline opens an empty fifth line.
    assert.deepStrictEqual(sliceLines(t, { startLine: 3, endLine: 99 }), { content: 'three\rfour\n', range: { startLine: 3, endLine: 5 } });
    assert.strictEqual(sliceLines(t, { startLine: 6, endLine: 7 }), undefined);
    assert.strictEqual(sliceLines(t, { startLine: 0, endLine: 1 }), undefined);
    assert.strictEqual(sliceLines(t, { startLine: 3, endLine: 2 }), undefined);
  });
});

describe('rendering', () => {
  it('keeps content verbatim between an opening tag and a hash-carrying closing marker', () => {
    const content = 'a </file> b\n<|endoftext|>\n';
    const h = sha256Hex(content);
    const block = renderFullBlock({
      id: 'file:x.md',
      kind: 'file',
      source: { uri: 'x.md' },
      recoverable: true,
      content,
      contentHash: h,
      version: 1,
      priority: 5,
      essential: false,
    });
    assert.strictEqual(
      block,
      `<file id="file:x.md" version="1" path="x.md" sha="${h.slice(0, 8)}">\n${content}\n</file:${h.slice(0, 8)}>\n`,
    );
    assert.strictEqual(extractBody(block), content);
  });

  it('lengthens the closing marker when the content contains it', () => {
    const hash = 'abcdef0123456789'.repeat(4);
    assert.strictEqual(closingMarker('file', 'x', hash), '</file:abcdef01>');
    assert.strictEqual(closingMarker('file', 'x </file:abcdef01> y', hash), '</file:abcdef012345>');
    assert.strictEqual(closingMarker('file', '</file:abcdef01></file:abcdef012345>', hash), '</file:abcdef0123456789>');
  });

  it('escapes attribute values', () => {
    assert.strictEqual(escapeAttribute('evil/"quoted" <name>&.md'), 'evil/&quot;quoted&quot; &lt;name&gt;&amp;.md');
    assert.strictEqual(escapeAttribute('a\nb\u2028'), 'a&#10;b&#8232;');
  });
});

describe('budget', () => {
  it('is window − reserved output − min(1000, 2% of window)', () => {
    assert.strictEqual(safetyMargin(16000), 320);
    assert.strictEqual(safetyMargin(128000), 1000);
    assert.strictEqual(computeBudget({ contextWindow: 16000, maxOutputTokens: 2048 }), 13632);
    assert.strictEqual(computeBudget({ contextWindow: 128000, maxOutputTokens: 4096 }), 122904);
  });

  it('validates thresholds with clear messages', () => {
    assert.strictEqual(validateThresholds(DEFAULT_THRESHOLDS), undefined);
    assert.match(validateThresholds({ warnPercent: 70, compactPercent: 80, targetPercent: 0 })!, /targetPercent must be above 0/);
    assert.match(
      validateThresholds({ warnPercent: 60, compactPercent: 80, targetPercent: 60 })!,
      /must be below strata.budget.warnPercent/,
    );
    assert.match(
      validateThresholds({ warnPercent: 90, compactPercent: 80, targetPercent: 60 })!,
      /must not exceed strata.budget.compactPercent/,
    );
    assert.match(validateThresholds({ warnPercent: 70, compactPercent: 101, targetPercent: 60 })!, /at most 100/);
    assert.throws(
      () => engine({ thresholds: { warnPercent: 70, compactPercent: 80, targetPercent: 75 } }),
      /targetPercent \(75\) must be below/,
    );
    assert.strictEqual(meterLevel(69, 100, DEFAULT_THRESHOLDS), 'ok');
    assert.strictEqual(meterLevel(71, 100, DEFAULT_THRESHOLDS), 'warn');
    assert.strictEqual(meterLevel(101, 100, DEFAULT_THRESHOLDS), 'over');
  });
});

describe('transcript layout', () => {
  it('re-sends past user messages byte-identical: each request appends to the previous one', () => {
    const e = engine();
    const a = 'export const a = 1;\n';
    const env1 = build(e, { userText: 'explain', attachments: [file('src/a.ts', a)] });
    const h = sha256Hex(a).slice(0, 8);
    assert.deepStrictEqual(
      env1.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.deepStrictEqual(texts(env1.messages[1]), [
      `<file id="file:src/a.ts" version="1" path="src/a.ts" sha="${h}">\n${a}\n</file:${h}>\n`,
      'explain',
    ]);
    assert.deepStrictEqual(env1.newBlocks, ['file:src/a.ts']);
    e.completeTurn('It exports a.');
    const env2 = build(e, { userText: 'again', attachments: [file('src/a.ts', a)], fresh: new Map([['file:src/a.ts', a]]) });
    assert.strictEqual(JSON.stringify(env2.messages.slice(0, 2).map(texts)), JSON.stringify(env1.messages.map(texts)));
    assert.deepStrictEqual(texts(env2.messages[2]), ['It exports a.']);
    assert.deepStrictEqual(texts(env2.messages[3]), [
      `<ref id="file:src/a.ts" version="1" sha="${h}"/> (attached again, unchanged: its full block is earlier in this conversation)\n`,
      'again',
    ]);
    assert.strictEqual(env2.prefixBreak, false);
    // Ledger: the past full block is L2, the reference L3, display text L4.
    assert.deepStrictEqual(
      env2.layers.map((l) => l.segments.map((g) => g.id)),
      [['system'], ['file:src/a.ts'], ['ref:file:src/a.ts'], ['t1:user', 't1:reply'], ['user']],
    );
    // Breakpoints: end of system, end of previous request (its user message), previous reply, last block.
    assert.deepStrictEqual(env2.cacheBreakpoints, [0, 2, 3, 5]);
    // Layer tokens (1 token per character) add up to the request: framing is <|role|>\n + \n.
    const framing = (r: string) => `<|${r}|>\n`.length + 1;
    assert.strictEqual(env2.layers[0].tokens, 3 + framing('system'));
    assert.strictEqual(env2.layers[4].tokens, 'again'.length + framing('user'));
    assert.strictEqual(
      env2.totalTokens,
      env2.layers.reduce((n, l) => n + l.tokens, 0),
    );
    const text = env2.messages.map((m) => `<|${m.role}|>\n${texts(m).join('')}\n`).join('');
    assert.strictEqual(env2.totalTokens, text.length);
  });

  it('a changed file becomes a new version sent once in L3, even when not attached again', () => {
    const e = engine();
    build(e, { userText: 'q1', attachments: [file('a.md', 'v1 text')] });
    e.completeTurn('r1');
    const env = build(e, { userText: 'q2', fresh: new Map([['file:a.md', 'v2 text']]) });
    const current = env.messages[env.messages.length - 1];
    assert.strictEqual(current.content.length, 2);
    assert.match(current.content[0].text, /^<file id="file:a.md" version="2" path="a.md" sha="[0-9a-f]{8}">\nv2 text\n/);
    assert.deepStrictEqual(
      env.layers[2].segments.map((g) => g.id),
      ['file:a.md@v2'],
    );
    const v1 = env.ledger.layers[1].items.find((i) => i.id === 'file:a.md')!;
    assert.strictEqual(v1.superseded, true);
    e.completeTurn('r2');
    // Reverting to the old content is a new version too.
    const env3 = build(e, { userText: 'q3', fresh: new Map([['file:a.md', 'v1 text']]) });
    assert.deepStrictEqual(
      env3.layers[2].segments.map((g) => g.id),
      ['file:a.md@v3'],
    );
  });

  it('a deleted file keeps its snapshot, marked missing', () => {
    const e = engine();
    build(e, { userText: 'q1', attachments: [file('a.md', 'text')] });
    e.completeTurn('r1');
    const env = build(e, { userText: 'q2', fresh: new Map([['file:a.md', null]]) });
    assert.strictEqual(env.ledger.layers[1].items.find((i) => i.id === 'file:a.md')!.missing, true);
    assert.match(env.layers[2].segments[0].text, /^<deleted id="file:a.md" version="1"\/>/);
  });

  it('detach replaces the block with a one-line stub and reports the cut', () => {
    const e = engine();
    build(e, { userText: 'q1', attachments: [file('a.md', 'text')] });
    e.completeTurn('r1');
    const env = build(e, { userText: 'q2', detach: [{ kind: 'file', uri: 'a.md' }] });
    assert.strictEqual(env.messages[1].content[0].text, '<removed id="file:a.md" version="1"/> (removed from the context by the user)\n');
    assert.deepStrictEqual(
      env.pruned.map((p) => [p.item, p.reason, p.postTokens]),
      [['file:a.md', 'detached', 0]],
    );
    assert.strictEqual(env.prefixBreak, true);
  });

  it('pin / detach of something never attached is rejected as not-found', () => {
    const e = engine();
    const env = build(e, {
      userText: 'q',
      pin: [{ kind: 'selection', uri: 'a.md', range: { startLine: 1, endLine: 2 } }],
      detach: [{ kind: 'file', uri: 'b.md' }],
    });
    assert.deepStrictEqual(
      env.rejections.map((r) => [r.attachment, r.reason]),
      [
        ['a.md#L1-L2', 'not-found'],
        ['b.md', 'not-found'],
      ],
    );
  });

  it('the same selection twice in one turn is one block; an edited selection is a new id', () => {
    const e = engine();
    const sel = { kind: 'selection' as const, uri: 'a.ts', range: { startLine: 2, endLine: 3 }, content: 'b\nc' };
    const env = build(e, { userText: 'q', attachments: [sel, sel] });
    assert.strictEqual(env.layers[2].segments.length, 1);
    assert.strictEqual(env.layers[2].segments[0].id, `sel:a.ts#L2-L3@${sha256Hex('b\nc').slice(0, 8)}`);
    e.completeTurn('r');
    const env2 = build(e, { userText: 'q2', attachments: [{ ...sel, content: 'B\nc' }, sel] });
    assert.deepStrictEqual(
      env2.layers[2].segments.map((g) => g.kind),
      ['artifact', 'reference'],
    );
  });
});

describe('library layout', () => {
  it('promotes earlier attachments into the system message and references them', () => {
    const e = engine({ layout: 'library' });
    build(e, { userText: 'q1', attachments: [file('a.md', 'AAA')] });
    e.completeTurn('r1');
    const env = build(e, {
      userText: 'q2',
      attachments: [file('a.md', 'AAA'), file('b.md', 'BBB')],
      fresh: new Map([['file:a.md', 'AAA']]),
    });
    assert.deepStrictEqual(
      env.messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'user'],
    );
    assert.deepStrictEqual(
      env.layers.map((l) => l.segments.map((g) => g.id)),
      [['system'], ['library-header', 'file:a.md'], ['ref:file:a.md', 'file:b.md'], ['t1:user', 't1:reply'], ['user']],
    );
    assert.strictEqual(texts(env.messages[1])[0], '[attached: file:a.md]\nq1');
    assert.deepStrictEqual(env.cacheBreakpoints, [2, 4, 7]);
    e.completeTurn('r2');
    // b.md joins L2 at the end: everything after L2 (all of L4) falls out of the cache.
    const env3 = build(e, {
      userText: 'q3',
      fresh: new Map([
        ['file:a.md', 'AAA'],
        ['file:b.md', 'BBB'],
      ]),
    });
    assert.deepStrictEqual(
      env3.layers[1].segments.map((g) => g.id),
      ['library-header', 'file:a.md', 'file:b.md'],
    );
    assert.strictEqual(env3.prefixBreak, true);
  });

  it('refresh-in-place overwrites the L2 slot and reports the replaced version', () => {
    const e = engine({ layout: 'library', policy: 'refresh-in-place' });
    build(e, { userText: 'q1', attachments: [file('a.md', 'old'), file('b.md', 'bbb')] });
    e.completeTurn('r1');
    const env = build(e, {
      userText: 'q2',
      attachments: [file('a.md', 'new')],
      fresh: new Map([
        ['file:a.md', 'new'],
        ['file:b.md', 'bbb'],
      ]),
    });
    assert.deepStrictEqual(
      env.layers[1].segments.map((g) => g.id),
      ['library-header', 'file:a.md@v2', 'file:b.md'],
    );
    assert.deepStrictEqual(
      env.layers[2].segments.map((g) => g.kind),
      ['reference'],
    );
    assert.deepStrictEqual(
      env.pruned.map((p) => [p.item, p.reason]),
      [['file:a.md', 'refreshed-in-place']],
    );
  });

  it('append-diff sends a unified diff when it is smaller than the new content', () => {
    const e = engine({ policy: 'append-diff' });
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
    build(e, { userText: 'q1', attachments: [file('a.txt', lines.join('\n'))] });
    e.completeTurn('r1');
    const changed = lines.slice();
    changed[19] = 'line twenty';
    const env = build(e, { userText: 'q2', fresh: new Map([['file:a.txt', changed.join('\n')]]) });
    const block = env.layers[2].segments[0].text;
    assert.match(
      block,
      /^<file id="file:a.txt" version="2" path="a.txt" sha="[0-9a-f]{8}" content-sha="[0-9a-f]{8}" format="diff" base-version="1">\n--- a.txt \(file:a.txt\)\n\+\+\+ a.txt \(file:a.txt@v2\)\n@@ -17,7 \+17,7 @@\n line 17\n line 18\n line 19\n-line 20\n\+line twenty\n line 21\n line 22\n line 23\n<\/file:[0-9a-f]{8}>\n$/,
    );
  });
});

describe('pruning', () => {
  const big = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => (i % 10 === 0 ? `export function ${tag}${i}() {` : `  // ${tag} body line ${i}`)).join('\n');

  it('cuts superseded versions first, then compacts, and stops at the target (hysteresis)', () => {
    // budget = 20000 − 1000 − 400 = 18600; compact above 14880, cut down to 11160.
    const e = engine({ limits: { contextWindow: 20000, maxOutputTokens: 1000 } });
    const a1 = big(400, 'a');
    build(e, { userText: 'q1', attachments: [file('a.ts', a1)] });
    e.completeTurn('r1');
    const a2 = a1.replace('a0', 'a0x');
    const env2 = build(e, { userText: 'q2', fresh: new Map([['file:a.ts', a2]]) });
    assert.ok(env2.pruned[0].preTokens + env2.totalTokens > 14880, 'setup: the request was over the compaction threshold');
    assert.deepStrictEqual(
      env2.pruned.map((p) => [p.item, p.reason]),
      [['file:a.ts', 'superseded']],
    );
    assert.ok(env2.totalTokens <= 11160, `cut to the target, got ${env2.totalTokens}`);
    assert.strictEqual(
      env2.messages[1].content[0].text,
      '<removed id="file:a.ts" version="1"/> (dropped to fit the context budget; re-attach it to send it again)\n',
    );
    e.completeTurn('r2');
    // Next turn adds little: below the compaction threshold, nothing more is cut.
    const env3 = build(e, { userText: 'q3', fresh: new Map([['file:a.ts', a2]]) });
    assert.deepStrictEqual(env3.pruned, []);
    assert.strictEqual(env3.prefixBreak, false);
  });

  it('compacts recoverable files to structure + preview with a recovery hint, never selections', () => {
    const e = engine({ limits: { contextWindow: 20000, maxOutputTokens: 1000 } });
    const sel = { kind: 'selection' as const, uri: 's.ts', range: { startLine: 1, endLine: 300 }, content: big(300, 's') };
    build(e, { userText: 'q1', attachments: [file('a.ts', big(300, 'a')), sel] });
    e.completeTurn('r1');
    const env = build(e, { userText: 'q2', attachments: [file('b.ts', big(300, 'b'))] });
    // Compaction first (library oldest first, this turn's last), then a drop by priority: the file
    // (medium) goes before the selection (high), which is never compacted.
    assert.deepStrictEqual(
      env.pruned.map((p) => [p.item, p.reason]),
      [
        ['file:a.ts', 'compacted'],
        ['file:b.ts', 'compacted'],
        ['file:a.ts', 'budget'],
      ],
    );
    assert.deepStrictEqual(
      env.layers.map((l) => l.segments.map((g) => `${g.id}:${g.kind}`)),
      [
        ['system:system'],
        [`${env.layers[1].segments[0].id}:artifact`],
        ['file:b.ts:compacted'],
        ['t1:file:a.ts:stub', 't1:user:user-text', 't1:reply:reply'],
        ['user:user-text'],
      ],
    );
    assert.match(env.layers[1].segments[0].id, /^sel:s\.ts#L1-L300@/);
    const compacted = env.layers[2].segments[0];
    assert.match(compacted.text, /format="preview" kept-lines="95" total-lines="300"/);
    assert.match(compacted.text, /export function b0\(\) \{/);
    assert.match(compacted.text, /Ask the user to re-attach b\.ts to see it in full/);
    const report = env.pruned[1];
    assert.ok(report.postTokens < report.preTokens / 2, `preview ${report.postTokens} vs full ${report.preTokens}`);
    assert.strictEqual(report.kept, 'structure and first lines (95 of 300 lines)');
    assert.ok(env.totalTokens <= 11160);
    // Re-attaching a compacted file sends its full content again, as a new version.
    e.completeTurn('r2');
    const env3 = build(e, { userText: 'q3', attachments: [file('b.ts', big(300, 'b'))] });
    assert.ok(env3.newBlocks.includes('file:b.ts@v2'), JSON.stringify(env3.newBlocks));
  });

  it('library: re-attaching (or pinning) a compacted file sends it in full and supersedes its preview in the same request', () => {
    for (const how of ['re-attach', 'pin'] as const) {
      // budget = 20000 − 1000 − 400 = 18600; compact above 14880, cut down to 11160.
      const e = engine({ layout: 'library', limits: { contextWindow: 20000, maxOutputTokens: 1000 } });
      const a = big(100, 'a');
      build(e, { userText: 'q1', attachments: [file('a.ts', a)] });
      e.completeTurn('r1');
      const env2 = build(e, { userText: 'q2', attachments: [file('b.ts', big(650, 'b'))] });
      assert.deepStrictEqual(
        env2.pruned.map((p) => [p.item, p.reason]).slice(0, 1),
        [['file:a.ts', 'compacted']],
        'setup: a.ts was compacted',
      );
      e.completeTurn('r2');
      const env3 = build(
        e,
        how === 're-attach' ? { userText: 'q3', attachments: [file('a.ts', a)] } : { userText: 'q3', pin: [{ kind: 'file', uri: 'a.ts' }] },
      );
      assert.ok(env3.totalTokens < 14880, 'setup: the re-send alone does not trigger pruning');
      const segs = env3.layers.flatMap((l) => l.segments);
      const full = segs.find((g) => g.artifactKey === 'file:a.ts@v2')!;
      assert.strictEqual(full.kind, 'artifact', `${how}: a.ts is sent in full as a new version`);
      assert.strictEqual(extractBody(full.text), a);
      assert.deepStrictEqual(
        segs.filter((g) => g.artifactKey === 'file:a.ts').map((g) => g.kind),
        [],
        `${how}: the preview of the same content is not in the request`,
      );
      const report = env3.pruned.find((p) => p.item === 'file:a.ts')!;
      assert.deepStrictEqual(
        [report.reason, report.layer, report.postTokens],
        ['resent-in-full', 'L2', 0],
        `${how}: the superseded preview is reported`,
      );
      assert.equal(report.preTokens, 1085);
      const item = env3.ledger.layers[1].items.find((i) => i.id === 'file:a.ts')!;
      assert.deepStrictEqual([item.status, item.reason], ['pruned', 'resent-in-full']);
      e.completeTurn('r3');
      // Next turn: the new version sits in the library, the preview stays out.
      const env4 = build(e, { userText: 'q4' });
      assert.deepStrictEqual(
        env4.layers[1].segments.filter((g) => g.artifactKey?.startsWith('file:a.ts')).map((g) => `${g.artifactKey}:${g.kind}`),
        ['file:a.ts@v2:artifact'],
      );
    }
  });

  it('the invariants checker flags a compacted preview sent beside a full block of the same content (library)', () => {
    const preview =
      '<file id="file:a.ts" version="1" path="a.ts" sha="11111111" content-sha="22222222" format="preview" kept-lines="1" total-lines="9">\nx\n</file:11111111>\n';
    const fullText = renderFullBlock({
      id: 'file:a.ts',
      kind: 'file',
      source: { uri: 'a.ts' },
      recoverable: true,
      content: 'A',
      contentHash: sha256Hex('A'),
      version: 2,
      priority: 5,
      essential: false,
    });
    const artifact = (version: number) => ({
      id: 'file:a.ts',
      kind: 'file' as const,
      source: { uri: 'a.ts' },
      recoverable: true,
      content: 'A',
      contentHash: sha256Hex('A'),
      version,
      priority: 5,
      essential: false,
    });
    const segments = [
      {
        id: 'file:a.ts',
        layer: 'L2' as const,
        kind: 'compacted' as const,
        role: 'system' as const,
        text: preview,
        tokens: 1,
        artifactKey: 'file:a.ts',
      },
      {
        id: 'file:a.ts@v2',
        layer: 'L3' as const,
        kind: 'artifact' as const,
        role: 'user' as const,
        text: fullText,
        tokens: 1,
        artifactKey: 'file:a.ts@v2',
      },
    ];
    const env = {
      conversationId: 'c',
      turn: 2,
      layout: 'library' as const,
      prefixHash: '',
      pruned: [],
      totalTokens: 2,
      budget: 100,
      cacheBreakpoints: [],
      layers: (['L1', 'L2', 'L3', 'L4', 'L5'] as const).map((id) => {
        const segs = segments.filter((g) => g.layer === id);
        return { id, segments: segs, tokens: segs.length, hash: hashLayerSegments(segs, hasher) };
      }),
      messages: [],
      ledger: {
        conversationId: 'c',
        turn: 2,
        layout: 'library' as const,
        totalTokens: 2,
        budget: 100,
        cachedTokens: 0,
        layers: [],
        pruned: [],
      },
    };
    const ctx = {
      hasher,
      artifacts: new Map([
        ['file:a.ts', artifact(1)],
        ['file:a.ts@v2', artifact(2)],
      ]),
    };
    assert.deepStrictEqual(
      checkEnvelope(env, 100, ctx).map((v) => v.rule),
      ['preview-and-full'],
    );
    assert.deepStrictEqual(
      checkEnvelope({ ...env, layout: 'transcript' }, 100, ctx),
      [],
      'transcript keeps past messages as they were sent',
    );
  });

  it('keeps pinned items and the essentials; when they alone do not fit, nothing is sent', () => {
    const e = engine({ limits: { contextWindow: 5000, maxOutputTokens: 1000 } });
    // budget = 5000 − 1000 − 100 = 3900.
    const sel = { kind: 'selection' as const, uri: 's.ts', range: { startLine: 1, endLine: 100 }, content: big(100, 's') };
    build(e, { userText: 'q1', attachments: [sel] });
    e.completeTurn('r1');
    build(e, { userText: 'q2', pin: [{ kind: 'selection', uri: 's.ts', range: { startLine: 1, endLine: 100 } }] });
    e.completeTurn('r2');
    const env = build(e, { userText: 'q3', attachments: [file('a.ts', big(100, 'a'))] });
    const selSeg = env.layers.flatMap((l) => l.segments).find((g) => g.artifactKey?.startsWith('sel:'))!;
    assert.strictEqual(extractBody(selSeg.text), sel.content, 'the pinned selection stays verbatim');
    assert.ok(env.totalTokens <= env.budget);
    e.completeTurn('r3');
    const env4 = e.buildTurn({ userText: 'x'.repeat(5000) });
    assert.ok(env4.blocked);
    assert.deepStrictEqual(env4.messages, []);
    assert.match(
      env4.blocked!.message,
      /^Nothing was sent: what must be kept needs \d+ tokens, \d+ over the budget of 3900\. Kept: .*your message \(5000\)/,
    );
    assert.match(env4.blocked!.message, /pinned/);
    assert.throws(() => e.completeTurn('r4'), /blocked turn/);
  });

  it('summarizes the oldest history turns (the last four stay), then cuts further by priority', () => {
    const e = engine({ limits: { contextWindow: 12000, maxOutputTokens: 1000 } });
    // budget 12000 − 1000 − 240 = 10760; compaction above 8608, target 6456.
    for (let t = 1; t <= 7; t++) {
      build(e, { userText: `question ${t} ` + 'q'.repeat(600), attachments: [] });
      e.completeTurn(`answer ${t}. ` + 'a'.repeat(600));
    }
    const env = build(e, { userText: 'question 8 ' + 'q'.repeat(600) });
    assert.deepStrictEqual(
      env.pruned.map((p) => [p.item, p.reason]),
      [
        ['turn 1', 'summarized'],
        ['turn 2', 'summarized'],
        ['turn 3', 'summarized'],
        ['turn 4', 'budget'],
        ['turn 5', 'budget'],
      ],
    );
    assert.ok(env.totalTokens <= 6456, `cut down to the target: ${env.totalTokens}`);
    const summary = env.layers[3].segments.find((g) => g.kind === 'summary')!;
    assert.match(
      summary.text,
      /^\n<conversation-summary turns="1-5" sha="[0-9a-f]{8}">\n- Turn 1\. User: question 1 q{150,200} … \| Assistant: answer 1\. a{150,300} …\n/,
    );
    assert.deepStrictEqual(
      env.layers[3].segments.filter((g) => g.kind === 'user-text').map((g) => g.id),
      ['t6:user', 't7:user'],
    );
  });
});
