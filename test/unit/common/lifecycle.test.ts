import * as assert from 'node:assert/strict';
import { Disposable, DisposableStore, disposeAll, toDisposable } from '../../../src/common/lifecycle';

function recorder(log: string[], name: string) {
  return toDisposable(() => log.push(name));
}

describe('lifecycle', () => {
  it('toDisposable runs its function once', () => {
    let calls = 0;
    const d = toDisposable(() => calls++);
    d.dispose();
    d.dispose();
    assert.equal(calls, 1);
  });

  it('a store disposes in reverse order of registration, once', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(recorder(log, 'a'));
    store.add(recorder(log, 'b'));
    store.dispose();
    store.dispose();
    assert.deepEqual(log, ['b', 'a']);
    assert.equal(store.isDisposed, true);
  });

  it('adding to a disposed store disposes the item at once', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.dispose();
    store.add(recorder(log, 'late'));
    assert.deepEqual(log, ['late']);
  });

  it('clear() disposes the items but keeps the store usable', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(recorder(log, 'first'));
    store.clear();
    store.add(recorder(log, 'second'));
    assert.deepEqual(log, ['first']);
    assert.equal(store.isDisposed, false);
    store.dispose();
    assert.deepEqual(log, ['first', 'second']);
  });

  it('delete() disposes and forgets one item', () => {
    const log: string[] = [];
    const store = new DisposableStore();
    const item = store.add(recorder(log, 'x'));
    store.delete(item);
    store.dispose();
    assert.deepEqual(log, ['x']);
  });

  it('disposeAll disposes every item even when one throws, then rethrows', () => {
    const log: string[] = [];
    const boom = toDisposable(() => {
      throw new Error('boom');
    });
    assert.throws(() => disposeAll([recorder(log, 'a'), boom, recorder(log, 'c')]), /boom/);
    assert.deepEqual(log, ['a', 'c']);
    const thrower = (message: string) =>
      toDisposable(() => {
        throw new Error(message);
      });
    assert.throws(() => disposeAll([thrower('one'), thrower('two')]), AggregateError);
  });

  it('Disposable._register ties lifetimes to the owner', () => {
    const log: string[] = [];
    class Owner extends Disposable {
      constructor() {
        super();
        this._register(recorder(log, 'child'));
      }
    }
    const owner = new Owner();
    assert.deepEqual(log, []);
    owner.dispose();
    assert.deepEqual(log, ['child']);
  });
});
