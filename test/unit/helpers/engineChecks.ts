/**
 * The engine's properties (docs/design.md: layers, artifacts, budget, invariants) as checks over
 * one replayed random chat (`Case`). engineProperties.test.ts runs each one under fast-check;
 * keeping them here lets a one-off script run them over many more chats when hunting for bugs.
 */
import * as assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import type { ITokenizer } from '../../../src/engine/types';
import { validateTrajectory, type Trajectory } from '../../../bench/trajectory';
import { getTokenizer } from '../../../src/services/tokenizer';
import { buildTrajectory, cheapTokenizer, type ScenarioSpec } from './scenario';
import {
  allSegments,
  ChatModel,
  fullBodies,
  isDiffBlock,
  presentKeys,
  runTrajectory,
  type RunTurn,
  type TurnExpectation,
} from './chatModel';
import { openingTags, requestText } from './requestScan';

/** Cuts made to fit the budget (not the user's detach, not a refresh in place). */
export const BUDGET_CUTS = new Set(['superseded', 'compacted', 'summarized', 'budget']);

const realTokenizer = getTokenizer('o200k_base');
export const tokenizerOf = (spec: ScenarioSpec): ITokenizer => (spec.tokenizer === 'real' ? realTokenizer : cheapTokenizer);

export interface Case {
  spec: ScenarioSpec;
  traj: Trajectory;
  run: RunTurn[];
  /** The model's expectation per turn, in order. */
  expect: TurnExpectation[];
  model: ChatModel;
  /** Snapshots of the model after each turn: pinned selections and selection keys reported cut. */
  after: { pinned: Map<string, string>; snapshots: Map<string, string>; reported: Set<string>; files: Map<string, string> }[];
}

/** Replays are shared between the properties (same seed ⇒ same specs); bounded. */
const memo = new Map<string, Case>();

export function caseOf(spec: ScenarioSpec): Case {
  const k = JSON.stringify(spec);
  const hit = memo.get(k);
  if (hit) return hit;
  // Through JSON and the validator, exactly as a trajectory file would be loaded.
  const traj = validateTrajectory(JSON.parse(JSON.stringify(buildTrajectory(spec))));
  const run = runTrajectory(traj, spec.layout, spec.policy, tokenizerOf(spec));
  assert.equal(run.length, traj.turns.length, 'one replayed turn per trajectory turn');
  const model = new ChatModel(traj);
  const expect: TurnExpectation[] = [];
  const after: Case['after'] = [];
  run.forEach((t, i) => {
    expect.push(model.step(traj.turns[i], t.pruned, t.committed));
    after.push({
      pinned: new Map(model.pinned),
      snapshots: new Map(model.snapshots),
      reported: new Set(model.reported),
      files: new Map(model.files),
    });
  });
  const c = { spec, traj, run, expect, model, after };
  if (memo.size > 400) memo.clear();
  memo.set(k, c);
  return c;
}

const where = (c: Case, t: RunTurn) => `${c.spec.layout}/${c.spec.policy}/${c.spec.tokenizer}, budget ${t.envelope.budget}, turn ${t.turn}`;

export interface EngineProperty {
  title: string;
  /** Runs of this property (default: the suite's). */
  runs?: number;
  check: (c: Case) => void;
}

export const PROPERTIES: EngineProperty[] = [
  {
    title: 'checkEnvelope finds no violation on any envelope, blocked or not',
    check: (c) => {
      for (const t of c.run) assert.deepEqual(t.violations, [], where(c, t));
    },
  },
  {
    title: 'is deterministic: two fresh engines fed the same chat build byte-identical envelopes',
    runs: 60,
    check: (c) => {
      const again = runTrajectory(c.traj, c.spec.layout, c.spec.policy, tokenizerOf(c.spec));
      assert.equal(again.length, c.run.length);
      c.run.forEach((t, i) => assert.equal(JSON.stringify(again[i].envelope), JSON.stringify(t.envelope), where(c, t)));
    },
  },
  {
    title: "L2 never shrinks without a report: a version sent in full or compacted is sent again next turn or named in that turn's cuts",
    check: (c) => {
      let prev: RunTurn | undefined;
      for (const t of c.run) {
        // A blocked turn sends nothing and changes nothing; compare committed turns.
        if (!t.committed) continue;
        if (prev) {
          const now = presentKeys(t);
          const reported = new Set(t.pruned.map((p) => p.item));
          for (const k of presentKeys(prev)) {
            if (!now.has(k))
              assert.ok(
                reported.has(k),
                `${where(c, t)}: ${k} (sent in turn ${prev.turn}) vanished without a report; cuts: ${JSON.stringify(t.pruned.map((p) => `${p.reason} ${p.item}`))}`,
              );
          }
        }
        prev = t;
      }
    },
  },
  {
    title:
      'cut reports tell the truth: an item reported cut is not in that request; one reported compacted or fitted is there as a preview',
    check: (c) => {
      for (const t of c.run) {
        if (!t.committed) continue;
        const kinds = new Map<string, string>();
        for (const g of allSegments(t))
          if ((g.kind === 'artifact' || g.kind === 'compacted') && g.artifactKey) kinds.set(g.artifactKey, g.kind);
        const last = new Map<string, string>();
        for (const p of t.pruned) if (!/^turns? \d/.test(p.item)) last.set(p.item, p.reason);
        for (const [k, reason] of last) {
          if (reason === 'compacted' || reason === 'fitted')
            assert.equal(kinds.get(k), 'compacted', `${where(c, t)}: ${k} is reported ${reason} but sent as ${kinds.get(k) ?? 'nothing'}`);
          else assert.equal(kinds.get(k), undefined, `${where(c, t)}: ${k} is reported cut (${reason}) but still sent as ${kinds.get(k)}`);
        }
      }
    },
  },
  {
    title: 'sends each artifact version as a full block at most once per request (segments and request text agree)',
    check: (c) => {
      for (const t of c.run) {
        if (!t.committed) continue;
        for (const [k, bodies] of fullBodies(t)) assert.equal(bodies.length, 1, `${where(c, t)}: ${k} sent ${bodies.length} times`);
        // Read back from the request text alone: every opening tag line is one the engine emitted, and
        // no (id, version) opens two full blocks. (Block *ends* are checked in adversarial.test.ts.)
        const tags = openingTags(requestText(t.envelope.messages));
        const emitted = allSegments(t)
          .filter((g) => g.kind === 'artifact' || g.kind === 'compacted')
          .map((g) => g.text.slice(0, g.text.indexOf('\n')));
        assert.deepEqual([...tags].sort(), [...emitted].sort(), `${where(c, t)}: opening tags in the request text`);
        const full = tags.filter((x) => !/ format="/.test(x)).map((x) => /id="([^"]*)" version="(\d+)"/.exec(x)!.slice(1).join('@'));
        assert.equal(new Set(full).size, full.length, `${where(c, t)}: a version opens two full blocks: ${full.join(', ')}`);
      }
    },
  },
  {
    title: 'every request fits its budget; a blocked turn sends nothing and says what is essential and by how much it is over',
    check: (c) => {
      const w = c.traj.model.contextWindow;
      const budget = w - c.traj.model.maxOutputTokens - Math.min(1000, Math.floor(w * 0.02));
      c.run.forEach((t, i) => {
        const env = t.envelope;
        assert.equal(env.budget, budget);
        if (!env.blocked) {
          assert.ok(env.totalTokens <= budget, `${where(c, t)}: ${env.totalTokens} tokens > budget ${budget}`);
          assert.equal(env.messages[env.messages.length - 1].role, 'user');
          return;
        }
        assert.deepEqual(env.messages, [], `${where(c, t)}: a blocked turn sends nothing`);
        assert.deepEqual(env.cacheBreakpoints, []);
        const b = env.blocked;
        assert.equal(b.budget, budget);
        assert.equal(b.essentialTokens, env.totalTokens);
        assert.ok(b.essentialTokens > budget, `${where(c, t)}: blocked although ${b.essentialTokens} <= ${budget}`);
        assert.ok(b.message.includes(`${b.essentialTokens - budget} over the budget of ${budget}`), b.message);
        assert.ok(b.message.includes('system prompt and instructions ('), b.message);
        assert.ok(b.message.includes('your message ('), b.message);
        for (const k of c.expect[i].pinnedNow.keys())
          assert.ok(b.message.includes(`${k} (`), `${where(c, t)}: the blocked message does not name pinned ${k}: ${b.message}`);
      });
    },
  },
  {
    title: 'a pinned item is sent in full, byte-identical, in every request while pinned, and is never cut',
    check: (c) => {
      c.run.forEach((t, i) => {
        if (!t.committed) return;
        const bodies = fullBodies(t);
        // Selections the model says are pinned (pinned by the user, not since unpinned or detached).
        for (const [k, snapshot] of c.after[i].pinned) {
          assert.deepEqual(bodies.get(k), [snapshot], `${where(c, t)}: pinned selection ${k} is not sent verbatim`);
        }
        // Everything the committed state holds as essential, files included.
        const essential = t.essentialAfter!;
        for (const [k, content] of essential) {
          // A changed pinned file may go out once as a diff (append-diff); its base is checked by the diff property.
          const sent = bodies.get(k);
          const ok = isDeepStrictEqual(sent, [content]) || (k.startsWith('file:') && isDeepStrictEqual(sent, [undefined]));
          assert.ok(
            ok,
            `${where(c, t)}: essential ${k} is not sent in full (${sent === undefined ? 'absent' : 'sent as ' + JSON.stringify(sent.map((b) => (b === undefined ? 'a diff' : b.length + ' chars')))})`,
          );
        }
        const selEssential = [...essential.keys()].filter((k) => k.startsWith('sel:')).sort();
        assert.deepEqual(selEssential, [...c.after[i].pinned.keys()].sort(), `${where(c, t)}: pinned selections`);
        // No budget cut names an item that was pinned before the turn and not unpinned / changed during it.
        let last = i - 1;
        while (last >= 0 && !c.run[last].committed) last--;
        const before = last >= 0 ? c.run[last].essentialAfter! : new Map<string, string>();
        // Edits of blocked turns in between apply too (the workspace changed; the engine sees it now).
        const touched = new Set<string>();
        for (const turn of c.traj.turns.slice(last + 1, i + 1)) for (const p of Object.keys(turn.edits ?? {})) touched.add(p);
        const turn = c.traj.turns[i];
        for (const a of [...(turn.unpin ?? []), ...(turn.detach ?? [])]) touched.add(a.file ?? a.selection!.file);
        for (const p of t.pruned) {
          if (!BUDGET_CUTS.has(p.reason) || !before.has(p.item)) continue;
          const uri = p.item.replace(/^(file|sel):/, '').replace(/(#L\d+-L\d+@[0-9a-f]{8})?(@v\d+)?$/, '');
          assert.ok(touched.has(uri), `${where(c, t)}: pinned ${p.item} was cut (${p.reason})`);
        }
      });
    },
  },
  {
    title: 'a selection (non-recoverable) is byte-identical in every request or reported dropped in this or an earlier turn',
    check: (c) => {
      c.run.forEach((t, i) => {
        if (!t.committed) return;
        const bodies = fullBodies(t);
        const present = presentKeys(t);
        for (const [k, snapshot] of c.after[i].snapshots) {
          if (bodies.has(k)) assert.deepEqual(bodies.get(k), [snapshot], `${where(c, t)}: selection ${k} is not verbatim`);
          else {
            assert.ok(!present.has(k), `${where(c, t)}: selection ${k} was compacted`);
            assert.ok(c.after[i].reported.has(k), `${where(c, t)}: selection ${k} is gone without a report`);
          }
        }
      });
    },
  },
  {
    title: 'pruning is hysteretic: after a turn cut down to the target, a next turn adding < 20% of the budget is not cut again',
    check: (c) => {
      const tok = tokenizerOf(c.spec);
      for (let i = 0; i + 1 < c.run.length; i++) {
        const t = c.run[i];
        const next = c.run[i + 1];
        const env = t.envelope;
        if (!t.committed || !t.pruned.some((p) => BUDGET_CUTS.has(p.reason))) continue;
        if (env.totalTokens > Math.floor(env.budget * 0.6)) continue; // the cut could not reach the target
        // An upper bound of what turn i+1 adds: last reply, new message, attachments and edited files in
        // full (+ tag allowance each), and the previous turn's items turning into history notes/refs.
        const prevTurn = c.traj.turns[i];
        const turn = c.traj.turns[i + 1];
        let added = 40 + tok.count(prevTurn.reply) + tok.count(turn.user || '(empty message)') + 40 * (prevTurn.attach?.length ?? 0);
        for (const a of turn.attach ?? []) added += 120 + tok.count(c.after[i + 1].files.get(a.selection?.file ?? a.file!) ?? '');
        for (const v of Object.values(turn.edits ?? {}))
          added += 120 + (v === null ? 0 : tok.count(typeof v === 'string' ? v : v.repeat.repeat(v.times)));
        // Pinning something that was cut sends it again in full.
        for (const a of turn.pin ?? []) added += 120 + tok.count(c.after[i + 1].files.get(a.selection?.file ?? a.file!) ?? '');
        // library + append-diff: a version first sent as a diff is promoted to L2 in full next turn.
        if (c.spec.layout === 'library') {
          for (const g of allSegments(t)) {
            if (g.layer === 'L3' && g.kind === 'artifact' && isDiffBlock(g.text))
              added += 120 + tok.count(c.after[i].files.get(/ path="([^"]*)"/.exec(g.text)![1]) ?? '');
          }
        }
        if (added >= env.budget * 0.2) continue;
        const cuts = next.pruned.filter((p) => BUDGET_CUTS.has(p.reason));
        assert.equal(next.envelope.blocked, undefined, `${where(c, next)}: blocked right after a cut`);
        assert.deepEqual(
          cuts.map((p) => `${p.reason} ${p.item}`),
          [],
          `${where(c, next)}: cut again (previous turn ${env.totalTokens}/${env.budget}, added ≤ ${added})`,
        );
      }
    },
  },
  {
    title:
      'a turn without cuts keeps the stable prefix: transcript re-sends the previous request byte-identical, library keeps L1+L2 and appends',
    check: (c) => {
      let prev: RunTurn | undefined;
      for (const t of c.run) {
        if (!t.committed) continue;
        if (prev && t.pruned.length === 0) {
          if (c.spec.layout === 'transcript') {
            const before = prev.envelope.messages.map((m) => `${m.role}:${m.content.map((b) => b.text).join('')}`);
            const now = t.envelope.messages.slice(0, before.length).map((m) => `${m.role}:${m.content.map((b) => b.text).join('')}`);
            const at = before.findIndex((m, i) => m !== now[i]);
            if (at >= 0) {
              const a = before[at];
              const b = now[at] ?? '';
              let d = 0;
              while (d < a.length && a[d] === b[d]) d++;
              const from = Math.max(0, a.lastIndexOf('\n', d - 1) + 1);
              assert.fail(
                `${where(c, t)}: message ${at} of turn ${prev.turn}'s request changed although nothing was cut, at: ${JSON.stringify(a.slice(from, d + 80))} → ${JSON.stringify(b.slice(from, d + 80))}`,
              );
            }
            assert.equal(
              t.envelope.prefixBreak,
              false,
              `${where(c, t)}: the engine reports a prefix break (${t.envelope.prefixBreakReason}) in a turn without cuts`,
            );
          } else {
            const stable = (r: RunTurn) =>
              r.envelope.layers
                .slice(0, 2)
                .flatMap((l) => l.segments)
                .filter((g) => g.kind !== 'summary')
                .map((g) => g.text);
            const before = stable(prev);
            const now = stable(t).slice(0, before.length);
            const at = before.findIndex((x, i) => x !== now[i]);
            // (A library request whose L2 grew is a reported prefix break, by design.)
            assert.equal(at, -1, `${where(c, t)}: L1+L2 segment ${at} changed although nothing was cut`);
          }
        }
        prev = t;
      }
    },
  },
  {
    title: 'a diff block (append-diff) can be applied: its base version is in the same request in full, or as a diff that can be applied',
    check: (c) => {
      for (const t of c.run) {
        if (!t.committed) continue;
        const diffs = new Map<string, string>();
        const known = new Set<string>();
        for (const g of allSegments(t)) {
          if (g.kind !== 'artifact') continue;
          if (!isDiffBlock(g.text)) {
            known.add(g.artifactKey!);
            continue;
          }
          const base = Number(/ base-version="(\d+)"/.exec(g.text)![1]);
          const id = g.artifactKey!.replace(/@v\d+$/, '');
          diffs.set(g.artifactKey!, base === 1 ? id : `${id}@v${base}`);
        }
        // Resolve chains (v3 as a diff of v2, itself a diff of a full v1).
        for (let grew = true; grew;) {
          grew = false;
          for (const [k, base] of diffs) if (!known.has(k) && known.has(base)) grew = !!known.add(k);
        }
        for (const [k, base] of diffs)
          assert.ok(
            known.has(k),
            `${where(c, t)}: ${k} is a diff against ${base}, which this request does not carry (in full or as an applicable diff)`,
          );
      }
    },
  },
  {
    title: 'rejections are exactly the predicted ones (the model the other properties rely on agrees with the engine)',
    check: (c) => {
      c.run.forEach((t, i) => {
        const got = t.rejections.map((r) => `${r.attachment}|${r.reason}`).sort();
        assert.deepEqual(got, c.expect[i].rejections, where(c, t));
      });
    },
  },
];
