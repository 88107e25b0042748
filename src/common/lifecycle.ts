/**
 * Ownership of resources: whoever creates a disposable registers it where it is created, and
 * disposing the owner disposes everything it registered, last registered first.
 * Structural types only, so the engine, the webview and the host can all use it (a
 * `vscode.Disposable` is an `IDisposable`).
 */
export interface IDisposable {
  dispose(): void;
}

export function toDisposable(fn: () => void): IDisposable {
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
export function disposeAll(items: Iterable<IDisposable>): void {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      item.dispose();
    } catch (err) {
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
export class DisposableStore implements IDisposable {
  private readonly items = new Set<IDisposable>();
  private disposed = false;

  get isDisposed(): boolean {
    return this.disposed;
  }

  add<T extends IDisposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
    } else {
      this.items.add(item);
    }
    return item;
  }

  /** Disposes the item now and forgets it. */
  delete(item: IDisposable): void {
    if (this.items.delete(item)) {
      item.dispose();
    }
  }

  /** Disposes everything added so far; unlike `dispose()`, the store stays usable. */
  clear(): void {
    const items = [...this.items].reverse();
    this.items.clear();
    disposeAll(items);
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.clear();
  }
}

/** Base class for objects that own disposables: `this._register(x)` ties x's lifetime to `this`. */
export abstract class Disposable implements IDisposable {
  private readonly store = new DisposableStore();

  protected get isDisposed(): boolean {
    return this.store.isDisposed;
  }

  protected _register<T extends IDisposable>(item: T): T {
    return this.store.add(item);
  }

  dispose(): void {
    this.store.dispose();
  }
}
