/**
 * Context in one keystroke, the parts that run without the editor: the fuzzy ranking of the `@`
 * picker (exact orders, and its speed on a workspace of 2,000 files), the checks of the new panel
 * requests and answers, the `@problems` snapshot, the setting's place in Restricted Mode, and the
 * tree saying what is suggested and not included.
 */
import { onCore } from '../../support/onCore';
import * as assert from 'node:assert/strict';
import { fuzzyMatch, rankFuzzy } from '../../../src/common/fuzzy';
import { SETTING_DEFAULTS } from '../../../src/host/settings/configKeys';
import { effectiveSetting, RESTRICTED_KEYS } from '../../../src/host/settings/settingsPolicy';
import { parseMentionRef, parseMentionResult, parseMentionViews } from '../../../src/protocol/mentions';
import { parseHostToWebviewMessage, ProtocolError } from '../../../src/protocol/messages';
import { parseResponseValue, parseWebviewToHostMessage } from '../../../src/protocol/requests';
import { buildLedgerTree } from '../../../src/services/ledgerTree';
import { problemsSnapshot } from '../../../src/services/problemsSnapshot';

/** 2,000 workspace paths shaped like a real repository's. */
function workspacePaths(): string[] {
  const out: string[] = [];
  const dirs = [
    'src/host',
    'src/engine',
    'src/services/store',
    'webview-ui',
    'test/unit/services',
    'test/integration',
    'docs',
    'bench/perf',
  ];
  const words = ['chat', 'session', 'store', 'layer', 'tree', 'provider', 'request', 'budget', 'token', 'cache', 'view', 'panel'];
  for (let i = 0; out.length < 2000; i++) {
    const a = words[i % words.length];
    const b = words[Math.floor(i / words.length) % words.length];
    const dir = dirs[i % dirs.length];
    out.push(`${dir}/${a}${b[0].toUpperCase()}${b.slice(1)}${i}.ts`);
  }
  return out.sort();
}

describe('composer context: fuzzy ranking', () => {
  it('matches characters in order, case-insensitive, and refuses what is not a subsequence', () => {
    assert.ok(fuzzyMatch('cs', 'src/chatSession.ts'));
    assert.ok(fuzzyMatch('CHATSES', 'src/chatSession.ts'));
    assert.equal(fuzzyMatch('sc', 'cs'), undefined);
    assert.equal(fuzzyMatch('xyz', 'src/chatSession.ts'), undefined);
    assert.deepEqual(fuzzyMatch('', 'a')?.positions, []);
  });

  it('prefers the file name, word starts and runs; shorter paths win ties', () => {
    const paths = ['src/chat/session.ts', 'src/services/chatSession.ts', 'docs/chess.md', 'src/host/chatViewProvider.ts', 'chatSession.ts'];
    const ranked = rankFuzzy('chatses', paths, (p) => p, 10).map((r) => r.item);
    assert.deepEqual(ranked, ['chatSession.ts', 'src/services/chatSession.ts', 'src/chat/session.ts']);
    const byName = rankFuzzy('cvp', paths, (p) => p, 10).map((r) => r.item);
    assert.equal(byName[0], 'src/host/chatViewProvider.ts');
    // The positions are the characters to highlight.
    const m = fuzzyMatch('cvp', 'src/host/chatViewProvider.ts');
    assert.deepEqual(m?.positions, [9, 13, 17]);
  });

  it('an exact file name beats a longer one that contains it', () => {
    const ranked = rankFuzzy('a.ts', ['src/zzz/data.ts', 'src/a.ts', 'lib/a.tsx'], (p) => p, 3).map((r) => r.item);
    assert.equal(ranked[0], 'src/a.ts');
  });

  it('ranks 2,000 paths per keystroke in a few milliseconds', () => {
    const paths = workspacePaths();
    assert.equal(paths.length, 2000);
    const queries = ['c', 'ch', 'cha', 'chat', 'chatS', 'chatSe', 'chatSes', 'hostcs', 'st/tr', 'panel12'];
    rankFuzzy('warm', paths, (p) => p, 50);
    const times: number[] = [];
    for (let round = 0; round < 5; round++)
      for (const q of queries) {
        times.push(onCore(() => rankFuzzy(q, paths, (p) => p, 50)).ms);
      }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const p95 = times[Math.floor(times.length * 0.95)];
    console.log(`      fuzzy ranking of 2,000 paths, on a core: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms`);
    // Generous for a loaded machine: a keystroke's budget is well above it.
    assert.ok(p95 < 50, `p95 ${p95.toFixed(1)} ms`);
  });
});

describe('composer context: protocol', () => {
  const request = (r: unknown) => parseWebviewToHostMessage({ type: 'request', requestId: 1, request: r });

  it('accepts mentions, attachMention and slashCommand with their fields', () => {
    for (const r of [
      { kind: 'mentions', query: 'chat' },
      { kind: 'mentions', query: '#Panel' },
      { kind: 'attachMention', ref: { kind: 'file', path: 'src/a.ts' } },
      { kind: 'attachMention', ref: { kind: 'range', path: 'src/a.ts', startLine: 3, endLine: 9 } },
      { kind: 'attachMention', ref: { kind: 'problems' } },
      { kind: 'attachMention', ref: { kind: 'activeEditor' } },
      { kind: 'slashCommand', name: 'compact' },
      { kind: 'slashCommand', name: 'cost' },
    ]) {
      const parsed = request(r);
      assert.ok(!(parsed instanceof ProtocolError), `${JSON.stringify(r)}: ${String(parsed)}`);
      assert.deepEqual(parsed, { type: 'request', requestId: 1, request: r });
    }
  });

  it('refuses malformed ones with a reason', () => {
    const cases: [unknown, RegExp][] = [
      [{ kind: 'mentions', query: 'x'.repeat(201) }, /query must be a string of at most 200/],
      [{ kind: 'mentions' }, /query/],
      [{ kind: 'attachMention', ref: { kind: 'file', path: '' } }, /ref.path must be a non-empty string/],
      [{ kind: 'attachMention', ref: { kind: 'range', path: 'a', startLine: 9, endLine: 3 } }, /startLine ≤ endLine/],
      [{ kind: 'attachMention', ref: { kind: 'problems', path: 'a' } }, /takes no other fields/],
      [{ kind: 'attachMention', ref: { kind: 'shell' } }, /ref.kind must be one of/],
      [{ kind: 'attachMention', ref: { kind: 'file', path: 'a' }, extra: 1 }, /takes only ref/],
      [{ kind: 'slashCommand', name: 'rm' }, /name must be one of compact, cost/],
    ];
    for (const [r, why] of cases) {
      const parsed = request(r);
      assert.ok(parsed instanceof ProtocolError, JSON.stringify(r));
      assert.match(parsed.message, why);
    }
    assert.equal(typeof parseMentionRef({ kind: 'file', path: 'a', extra: 1 }), 'string');
  });

  it('checks the answers and the suggestion message the panel reads', () => {
    const views = [{ kind: 'file', label: 'src/a.ts', detail: 'src', matches: [4], ref: { kind: 'file', path: 'src/a.ts' } }];
    assert.deepEqual(parseResponseValue('mentions', views), views);
    assert.deepEqual(parseMentionViews([{ kind: 'file', label: 'x', ref: { kind: 'nope' } }]), undefined);
    assert.ok(parseResponseValue('mentions', {}) instanceof ProtocolError);
    assert.deepEqual(parseMentionResult({ labels: ['src/a.ts'], insertText: 'Problems' }), {
      labels: ['src/a.ts'],
      insertText: 'Problems',
    });
    assert.equal(parseMentionResult({ labels: [1] }), undefined);
    const suggestion = {
      label: 'a.ts:3-9',
      detail: 'src/a.ts:3-9',
      ref: { kind: 'range', path: 'src/a.ts', startLine: 3, endLine: 9 },
      available: true,
    };
    assert.ok(parseHostToWebviewMessage({ type: 'suggestion', suggestion }));
    assert.ok(parseHostToWebviewMessage({ type: 'suggestion', suggestion: null }));
    assert.equal(parseHostToWebviewMessage({ type: 'suggestion', suggestion: { label: 'a' } }), undefined);
  });
});

describe('composer context: problems snapshot, setting, tree', () => {
  it('writes the diagnostics as a dated snapshot, errors first, capped', () => {
    const text = problemsSnapshot(
      'src/a.ts',
      [
        { path: 'src/a.ts', line: 9, column: 2, severity: 'warning', message: 'unused x', source: 'ts', code: '6133' },
        {
          path: 'src/a.ts',
          line: 12,
          column: 5,
          severity: 'error',
          message: "Type 'string' is not\nassignable",
          source: 'ts',
          code: '2322',
        },
      ],
      '14:05',
    );
    assert.equal(
      text,
      [
        'Problems in src/a.ts (snapshot at 14:05: 1 error, 1 warning):',
        "- L12:5 error: Type 'string' is not assignable (ts 2322)",
        '- L9:2 warning: unused x (ts 6133)',
      ].join('\n'),
    );
    assert.equal(problemsSnapshot('src/a.ts', [], '14:05'), undefined);
    const many = Array.from({ length: 60 }, (_, i) => ({ path: 'a', line: i + 1, column: 1, severity: 'error' as const, message: 'e' }));
    const capped = problemsSnapshot('a', many, '09:00')!.split('\n');
    assert.equal(capped.length, 52);
    assert.equal(capped[51], '- … and 10 more');
  });

  it('strata.context.activeEditor defaults to suggest, and a workspace in Restricted Mode cannot set always', () => {
    assert.equal(SETTING_DEFAULTS['context.activeEditor'], 'suggest');
    assert.ok(RESTRICTED_KEYS.includes('context.activeEditor'));
    const untrusted = effectiveSetting('context.activeEditor', { defaultValue: 'suggest', workspaceValue: 'always' }, false);
    assert.deepEqual(untrusted, { value: 'suggest', origin: 'default', ignored: true });
    const trusted = effectiveSetting('context.activeEditor', { defaultValue: 'suggest', workspaceValue: 'always' }, true);
    assert.equal(trusted.value, 'always');
    // The user's own choice holds either way.
    assert.equal(effectiveSetting('context.activeEditor', { globalValue: 'always', workspaceValue: 'off' }, false).value, 'always');
  });

  it('Next message says what is suggested and not included', () => {
    const roots = buildLedgerTree({ next: [], budget: 1000, requests: [], suggested: 'src/a.ts:3-9' });
    const next = roots.find((n) => n.id === 'next')!;
    assert.equal(next.description, 'nothing attached');
    assert.deepEqual(
      next.children?.map((c) => [c.label, c.description, c.name]),
      [['a.ts:3-9', 'suggested, not included', 'src/a.ts:3-9']],
    );
    const none = buildLedgerTree({ next: [], budget: 1000, requests: [] }).find((n) => n.id === 'next')!;
    assert.deepEqual(none.children, []);
  });
});
