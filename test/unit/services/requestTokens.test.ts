import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { replay } from '../../../bench/replayCore';
import { validateTrajectory } from '../../../bench/trajectory';
import { requestTokenCount } from '../../../src/services/cacheModel';
import { getTokenizer } from '../../../src/services/tokenizer';

/**
 * A request's tokens (docs/design.md#replay) are those of the concatenation, over messages, of
 * `<|role|>\n` + the message's text + `\n`, and the layer tokens add up to it. The engine counts
 * segments one by one; joins that merge when sent as one text ("?" + "\n" is one token) are taken
 * into the message's framing, so the engine's total is exactly what a provider (and the imitation
 * servers) count.
 */
const dir = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'trajectories');

describe('request tokens', () => {
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    for (const layout of ['transcript', 'library'] as const) {
      it(`${file} ${layout}: every request's layer tokens add up to the token count of its messages`, () => {
        const traj = validateTrajectory(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
        const tokenizer = getTokenizer(traj.model.encoding);
        let checked = 0;
        for (const t of replay(traj, { layout, policy: 'append-version', tokenizer })) {
          if (t.envelope.blocked) continue;
          const layers = t.envelope.layers.reduce((n, l) => n + l.tokens, 0);
          assert.equal(layers, t.envelope.totalTokens, `turn ${t.turn}: layers add up to the total`);
          assert.equal(
            t.envelope.totalTokens,
            requestTokenCount(t.envelope.messages, tokenizer),
            `turn ${t.turn}: the engine's total is the token count of its messages`,
          );
          checked++;
        }
        assert.equal(checked, traj.turns.length, 'every turn is checked (none is blocked)');
      });
    }
  }
});
