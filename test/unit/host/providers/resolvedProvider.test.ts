import * as assert from 'node:assert/strict';
import { ResolvedProviderCache } from '../../../../src/host/providers/resolvedProvider';
import type { ResolvedProvider } from '../../../../src/host/providers/providerResolver';

/** A resolve that reads "the settings" when it begins and ends when the test says so. */
function slowResolver(settings: { model: string }) {
  const pending: { model: string; finish: () => void }[] = [];
  const resolve = () =>
    new Promise<ResolvedProvider>((done) => {
      const model = settings.model;
      pending.push({ model, finish: () => done({ view: { model } } as ResolvedProvider) });
    });
  return { resolve, pending };
}

describe('ResolvedProviderCache', () => {
  it('resolves once and keeps the result until invalidated', async () => {
    const settings = { model: 'a' };
    const r = slowResolver(settings);
    const kept: string[] = [];
    const cache = new ResolvedProviderCache(r.resolve, (p) => kept.push(p.view.model));
    const one = cache.get();
    const two = cache.get();
    assert.equal(r.pending.length, 1, 'one resolve for both callers');
    r.pending[0].finish();
    assert.deepEqual([(await one).view.model, (await two).view.model], ['a', 'a']);
    assert.equal((await cache.get()).view.model, 'a');
    assert.equal(r.pending.length, 1, 'kept: not resolved again');
    assert.equal(cache.current?.view.model, 'a');
    assert.deepEqual(kept, ['a']);
  });

  it('a resolve that began before a settings change is not kept: its callers get the next one', async () => {
    const settings = { model: 'a' };
    const r = slowResolver(settings);
    const kept: string[] = [];
    const cache = new ResolvedProviderCache(r.resolve, (p) => kept.push(p.view.model));
    const before = cache.get();
    settings.model = 'b';
    cache.invalidate();
    const after = cache.get();
    assert.equal(r.pending.length, 1, 'the second caller waits on the running resolve');
    r.pending[0].finish();
    // The stale answer ("a") starts a fresh resolve, which reads "b".
    await new Promise((done) => setImmediate(done));
    assert.equal(r.pending.length, 2);
    assert.equal(r.pending[1].model, 'b');
    r.pending[1].finish();
    assert.deepEqual([(await before).view.model, (await after).view.model], ['b', 'b']);
    assert.equal(cache.current?.view.model, 'b');
    assert.deepEqual(kept, ['b'], 'the stale result was never kept');
  });

  it('a failed resolve is not kept: the next call tries again', async () => {
    let n = 0;
    const cache = new ResolvedProviderCache(
      async () => {
        if (++n === 1) throw new Error('key store unavailable');
        return { view: { model: 'c' } } as ResolvedProvider;
      },
      () => undefined,
    );
    await assert.rejects(cache.get(), /key store unavailable/);
    assert.equal(cache.current, undefined);
    assert.equal((await cache.get()).view.model, 'c');
    assert.equal(n, 2);
  });
});
