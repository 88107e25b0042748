/**
 * The provider as the settings say now: resolved once and kept until settings, keys or the editor's
 * models change. A resolve reads the settings when it begins and may take long (a key store, the
 * editor's model list on a busy machine): one that began before the latest change is not kept, and
 * whoever waits on it gets the resolve that follows.
 */
import type { ResolvedProvider } from './providerResolver';

export class ResolvedProviderCache {
  private resolved: ResolvedProvider | undefined;
  private resolving: Promise<ResolvedProvider> | undefined;
  /** Counts invalidations: a resolve is kept only when none came while it ran. */
  private generation = 0;

  constructor(
    private readonly resolve: () => Promise<ResolvedProvider>,
    private readonly onResolved: (r: ResolvedProvider) => void,
  ) {}

  /** The resolved provider, if one is kept. */
  get current(): ResolvedProvider | undefined {
    return this.resolved;
  }

  get(): Promise<ResolvedProvider> {
    if (this.resolved) return Promise.resolve(this.resolved);
    const asked = this.generation;
    this.resolving ??= this.resolve().then(
      (r) => {
        this.resolving = undefined;
        if (asked !== this.generation) return this.get();
        this.resolved = r;
        this.onResolved(r);
        return r;
      },
      (e: unknown) => {
        this.resolving = undefined;
        throw e;
      },
    );
    return this.resolving;
  }

  invalidate(): void {
    this.resolved = undefined;
    this.generation++;
  }
}
