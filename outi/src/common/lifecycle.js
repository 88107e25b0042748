"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Disposable = exports.DisposableStore = void 0;
exports.toDisposable = toDisposable;
exports.disposeAll = disposeAll;
function toDisposable(fn) {
    let done = false;
    return {
        dispose() {
            if (!done) {
                done = true;
                fn();
            }
        },
    };
}
/**
 * Disposes every item even when some throw; rethrows the first error (or an AggregateError when
 * several threw) once all have been disposed.
 */
function disposeAll(items) {
    const errors = [];
    for (const item of items) {
        try {
            item.dispose();
        }
        catch (err) {
            errors.push(err);
        }
    }
    if (errors.length === 1) {
        throw errors[0];
    }
    if (errors.length > 1) {
        throw new AggregateError(errors, 'several disposables threw while being disposed');
    }
}
/** A set of disposables owned together. Adding to a disposed store disposes the item at once. */
class DisposableStore {
    items = new Set();
    disposed = false;
    get isDisposed() {
        return this.disposed;
    }
    add(item) {
        if (this.disposed) {
            item.dispose();
        }
        else {
            this.items.add(item);
        }
        return item;
    }
    /** Disposes the item now and forgets it. */
    delete(item) {
        if (this.items.delete(item)) {
            item.dispose();
        }
    }
    /** Disposes everything added so far; unlike `dispose()`, the store stays usable. */
    clear() {
        const items = [...this.items].reverse();
        this.items.clear();
        disposeAll(items);
    }
    dispose() {
        if (this.disposed) {
            return;
        }
        this.disposed = true;
        this.clear();
    }
}
exports.DisposableStore = DisposableStore;
/** Base class for objects that own disposables: `this._register(x)` ties x's lifetime to `this`. */
class Disposable {
    store = new DisposableStore();
    get isDisposed() {
        return this.store.isDisposed;
    }
    _register(item) {
        return this.store.add(item);
    }
    dispose() {
        this.store.dispose();
    }
}
exports.Disposable = Disposable;
//# sourceMappingURL=lifecycle.js.map