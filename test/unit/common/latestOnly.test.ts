import * as assert from 'node:assert/strict';
import { LatestOnly } from '../../../src/common/latestOnly';

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('LatestOnly', () => {
  it('keeps a load no other load overlapped', async () => {
    assert.deepEqual(await new LatestOnly().run(async () => ['settings']), { value: ['settings'] });
  });

  it('an older load that ends after a newer one is dropped: the newer one decides', async () => {
    const loads = new LatestOnly();
    const trusted = deferred<string[]>();
    const restricted = deferred<string[]>();
    const older = loads.run(() => trusted.promise);
    const newer = loads.run(() => restricted.promise);
    restricted.resolve(['settings']);
    assert.deepEqual(await newer, { value: ['settings'] });
    trusted.resolve(['settings', 'AGENTS.md']);
    assert.equal(await older, undefined);
  });

  it('an older load that ends first is dropped too, once a newer one has begun', async () => {
    const loads = new LatestOnly();
    const first = deferred<number>();
    const older = loads.run(() => first.promise);
    const newer = loads.run(async () => 2);
    first.resolve(1);
    assert.equal(await older, undefined);
    assert.deepEqual(await newer, { value: 2 });
  });
});
