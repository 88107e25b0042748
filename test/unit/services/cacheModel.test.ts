import * as assert from 'node:assert/strict';
import { onCore } from '../../support/onCore';
import * as fc from 'fast-check';
import type { ChatMessage, TextBlock } from '../../../src/engine/types';
import {
  AnthropicCacheModel,
  ChatCacheSimulator,
  OpenAICacheModel,
  TokenPrefixTree,
  anthropicCostUnits,
  frameMessage,
  openaiCacheable,
  openaiCostUnits,
  requestText,
  requestTokenCount,
  requestTokens,
} from '../../../src/services/cacheModel';
import { charTokenizer } from '../../support/charTokenizer';

const tok = charTokenizer();

function b(text: string, bp = false): TextBlock {
  return bp ? { type: 'text', text, cacheBreakpoint: true } : { type: 'text', text };
}
function seq(n: number, start = 0): number[] {
  return Array.from({ length: n }, (_, i) => start + i);
}

describe('cacheModel: framing and token counting', () => {
  it('frames each message as <|role|>\\n + text + \\n and concatenates blocks without separator', () => {
    const m: ChatMessage = { role: 'user', content: [b('ab'), b('cd')] };
    assert.strictEqual(frameMessage(m), '<|user|>\nabcd\n');
    const msgs: ChatMessage[] = [{ role: 'system', content: [b('S')] }, m];
    assert.strictEqual(requestText(msgs), '<|system|>\nS\n<|user|>\nabcd\n');
    const rt = requestTokens(msgs, tok);
    assert.strictEqual(rt.tokens.length, requestText(msgs).length);
    assert.deepStrictEqual(
      rt.tokens,
      [...requestText(msgs)].map((c) => c.codePointAt(0)),
    );
    assert.strictEqual(requestTokenCount(msgs, tok), rt.tokens.length);
  });

  it('breakpoint offsets end at the block (last block of a message includes the trailing newline)', () => {
    // <|system|>\n = 11 chars; "SYS" = 3; "\n" = 1  → 15
    // <|user|>\n = 9; "aa" = 2 → 15 + 11 = 26 (mid-message: no trailing newline); "bbb" + "\n" → 30
    const msgs: ChatMessage[] = [
      { role: 'system', content: [b('SYS', true)] },
      { role: 'user', content: [b('aa', true), b('bbb', true)] },
    ];
    const rt = requestTokens(msgs, tok);
    assert.deepStrictEqual(rt.breakpointOffsets, [15, 26, 30]);
    assert.strictEqual(rt.tokens.length, 30);
  });

  it('special-token strings are ordinary text for the framing', () => {
    const msgs: ChatMessage[] = [{ role: 'user', content: [b('<|endoftext|>')] }];
    assert.strictEqual(requestTokens(msgs, tok).tokens.length, '<|user|>\n<|endoftext|>\n'.length);
  });
});

describe('cacheModel: OpenAI rule', () => {
  it('rounds: 1023 → 0, 1024 → 1024, 1151 → 1024, 1152 → 1152', () => {
    assert.strictEqual(openaiCacheable(0), 0);
    assert.strictEqual(openaiCacheable(1023), 0);
    assert.strictEqual(openaiCacheable(1024), 1024);
    assert.strictEqual(openaiCacheable(1151), 1024);
    assert.strictEqual(openaiCacheable(1152), 1152);
  });

  it('first request is never cached; common prefix 1023 → 0; 1024 → 1024; rounding to 128', () => {
    const m = new OpenAICacheModel();
    assert.deepStrictEqual(m.observe(seq(2000)), { cached: 0, commonPrefix: 0 });
    // shares 1023 tokens with the first one
    assert.strictEqual(m.observe([...seq(1023), -1, ...seq(50)]).cached, 0);
    // shares 1024
    assert.strictEqual(m.observe([...seq(1024), -2]).cached, 1024);
    // shares 1300 → 1280
    const r = m.observe([...seq(1300), -3, -3]);
    assert.deepStrictEqual(r, { cached: 1280, commonPrefix: 1300 });
  });

  it('matches against ANY earlier request, not only the previous one', () => {
    const m = new OpenAICacheModel();
    const a = seq(3000);
    const other = seq(3000, 100000);
    m.observe(a);
    m.observe(other);
    m.observe(seq(10, 500000));
    assert.strictEqual(m.observe([...seq(2500), 7, 7]).cached, 2432); // 2500 → 19×128
    assert.strictEqual(m.observe([...seq(1200, 100000), 9]).cached, 1152);
  });

  it('a changed earlier token breaks the prefix there', () => {
    const m = new OpenAICacheModel();
    const a = seq(5000);
    m.observe(a);
    const changed = a.slice();
    changed[1500] = -9;
    assert.strictEqual(m.observe(changed).cached, 1408); // 1500 → 1408
    const early = a.slice();
    early[10] = -9;
    assert.strictEqual(m.peek(early).cached, 0);
  });

  it('an identical request and a strict extension are cached up to the rounding', () => {
    const m = new OpenAICacheModel();
    m.observe(seq(1100));
    assert.strictEqual(m.observe(seq(1100)).cached, 1024);
    assert.strictEqual(m.observe(seq(4000)).cached, 1024); // common prefix 1100 with both earlier
    assert.strictEqual(m.observe(seq(4100)).cached, 3968); // 4000 → 31×128
  });

  it('radix tree agrees with a brute-force longest common prefix (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 12 }), { maxLength: 12 }), (seqs) => {
        const t = new TokenPrefixTree();
        const seen: number[][] = [];
        for (const s of seqs) {
          let best = 0;
          for (const p of seen) {
            let i = 0;
            while (i < p.length && i < s.length && p[i] === s[i]) i++;
            best = Math.max(best, i);
          }
          assert.strictEqual(t.longestPrefix(s), best);
          assert.strictEqual(t.insert(s), best);
          seen.push(s);
        }
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  it('stays fast: 200 turns × 50k tokens of an append-only chat', () => {
    const m = new OpenAICacheModel();
    const base: number[] = seq(50000 - 200 * 50);
    let prev = 0;
    // On a core: the bound is on the model's work, not on what else the machine runs.
    const { ms } = onCore(() => {
      for (let turn = 0; turn < 200; turn++) {
        for (let i = 0; i < 50; i++) base.push(1_000_000 + turn * 50 + i);
        const r = m.observe(base.slice());
        if (turn > 0) assert.strictEqual(r.cached, openaiCacheable(prev));
        prev = base.length;
      }
    });
    assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms on a core`);
  });
});

describe('cacheModel: Anthropic rule', () => {
  it('below 1024 nothing is written or read; the whole request is plain', () => {
    const m = new AnthropicCacheModel();
    assert.deepStrictEqual(m.observe(seq(1100), [1023]), { read: 0, write: 0, plain: 1100 });
    assert.deepStrictEqual(m.observe(seq(1100), [1023]), { read: 0, write: 0, plain: 1100 });
  });

  it('writes at 1024, then reads it back', () => {
    const m = new AnthropicCacheModel();
    assert.deepStrictEqual(m.observe(seq(1100), [1024]), { read: 0, write: 1024, plain: 76 });
    assert.deepStrictEqual(m.observe(seq(1200), [1024]), { read: 1024, write: 0, plain: 176 });
  });

  it('reads the longest earlier-written prefix ending at a breakpoint; writes up to the last breakpoint', () => {
    const m = new AnthropicCacheModel();
    // turn 1: breakpoints at 1500 and 3000 → writes 3000
    assert.deepStrictEqual(m.observe(seq(3200), [1500, 3000]), { read: 0, write: 3000, plain: 200 });
    // turn 2: same first 3200, breakpoints 1500, 3000, 4000 → read 3000 (longest written), write 1000
    assert.deepStrictEqual(m.observe(seq(4100), [1500, 3000, 4000]), { read: 3000, write: 1000, plain: 100 });
    // turn 3: breakpoints 1500, 3500 (3500 never written), 4000 → read 4000, write 0
    assert.deepStrictEqual(m.observe(seq(4500), [1500, 3500, 4000]), { read: 4000, write: 0, plain: 500 });
  });

  it('a prefix written as an earlier breakpoint is readable even if it was not the last one', () => {
    const m = new AnthropicCacheModel();
    m.observe(seq(5000), [2000, 4000]);
    const changed = seq(5000);
    changed[3000] = -1; // breaks the 4000 prefix, not the 2000 one
    assert.deepStrictEqual(m.observe(changed, [2000, 4000]), { read: 2000, write: 2000, plain: 1000 });
  });

  it('a changed earlier block breaks every prefix after it', () => {
    const m = new AnthropicCacheModel();
    m.observe(seq(5000), [2000, 4000]);
    const changed = seq(5000);
    changed[5] = -1;
    assert.deepStrictEqual(m.observe(changed, [2000, 4000]), { read: 0, write: 4000, plain: 1000 });
  });

  it('only prefixes ending exactly at a breakpoint count (no partial reads)', () => {
    const m = new AnthropicCacheModel();
    m.observe(seq(3000), [2000]);
    assert.deepStrictEqual(m.observe(seq(3000), [2500]), { read: 0, write: 2500, plain: 500 });
  });

  it('no breakpoints: everything plain', () => {
    const m = new AnthropicCacheModel();
    assert.deepStrictEqual(m.observe(seq(3000), []), { read: 0, write: 0, plain: 3000 });
  });

  it('written prefixes never expire within the chat', () => {
    const m = new AnthropicCacheModel();
    m.observe(seq(2000), [1500]);
    for (let i = 0; i < 50; i++) m.observe(seq(3000, 10_000 * (i + 1)), [2000]);
    assert.deepStrictEqual(m.observe(seq(2000), [1500]), { read: 1500, write: 0, plain: 500 });
  });
});

describe('cacheModel: memory', () => {
  it('keeps its own compact copy of what a request adds, never the observed arrays', () => {
    const oa = new OpenAICacheModel();
    const an = new AnthropicCacheModel();
    const first = seq(3000);
    oa.observe(first);
    an.observe(first, [1500, 3000]);
    first.fill(-7); // the caller reuses or frees its array
    assert.strictEqual(oa.observe(seq(3100)).commonPrefix, 3000);
    assert.deepStrictEqual(an.observe(seq(3100), [1500, 3000, 3100]), { read: 3000, write: 100, plain: 0 });
    assert.strictEqual(an.writtenPrefixes, 3);
  });

  it('Anthropic rule agrees with a brute-force model that keeps every request (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tokens: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1020, maxLength: 1040 }),
            offsets: fc.uniqueArray(fc.integer({ min: 1, max: 1040 }), { maxLength: 4 }).map((o) => o.sort((a, c) => a - c)),
          }),
          { maxLength: 8 },
        ),
        (reqs) => {
          const m = new AnthropicCacheModel();
          const written: number[][] = [];
          for (const { tokens: raw, offsets } of reqs) {
            // Mostly shared prefixes, so reads happen.
            const tokens = raw.map((t, i) => (i < 1000 ? 0 : t));
            const valid = offsets.filter((o) => o <= tokens.length);
            let read = 0;
            for (const o of valid)
              if (o >= 1024 && o > read && written.some((w) => w.length === o && w.every((t, i) => t === tokens[i]))) read = o;
            const last = valid.length ? Math.max(...valid) : 0;
            const write = valid.length && last >= 1024 ? last - read : 0;
            assert.deepStrictEqual(
              m.observe(tokens, offsets),
              valid.length ? { read, write, plain: tokens.length - read - write } : { read: 0, write: 0, plain: tokens.length },
            );
            for (const o of valid) written.push(tokens.slice(0, o));
          }
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe('cacheModel: cost units and the chat simulator', () => {
  it('cost units', () => {
    assert.strictEqual(openaiCostUnits(2000, 1024), 976 + 102.4);
    assert.strictEqual(anthropicCostUnits({ read: 1000, write: 2000, plain: 100 }), 100 + 100 + 2500);
  });

  it('multi-turn messages: breakpoints at the system message and the last block', () => {
    const sim = new ChatCacheSimulator(tok);
    const sys = 'S'.repeat(1189); // framed: 11 + 1189 + 1 = 1201
    const turn1: ChatMessage[] = [
      { role: 'system', content: [b(sys, true)] },
      { role: 'user', content: [b('q'.repeat(100), true)] }, // 9 + 100 + 1 = 110 → 1311
    ];
    const p1 = sim.observe(turn1);
    assert.deepStrictEqual(p1, { promptTokens: 1311, openai: { cached: 0 }, anthropic: { read: 0, write: 1311, plain: 0 } });
    const turn2: ChatMessage[] = [
      { role: 'system', content: [b(sys, true)] },
      { role: 'user', content: [b('q'.repeat(100))] },
      { role: 'assistant', content: [b('a'.repeat(50), true)] }, // 14 + 50 + 1 = 65 → 1376
      { role: 'user', content: [b('r'.repeat(20), true)] }, // 9 + 20 + 1 = 30 → 1406
    ];
    const p2 = sim.observe(turn2);
    // OpenAI: the first two messages are identical to turn 1 → common prefix 1311 → 1280.
    // Anthropic: written so far = {1201, 1311}; breakpoints now 1201, 1376, 1406 → read 1201, write 1406 − 1201.
    assert.deepStrictEqual(p2, { promptTokens: 1406, openai: { cached: 1280 }, anthropic: { read: 1201, write: 205, plain: 0 } });
  });
});
