/**
 * Runs loads that may overlap (settings or trust changed while one was reading files) and keeps
 * only the latest one's result: an older load that ends after a newer one would put back what the
 * settings said before, such as a repository's instructions after the workspace became restricted.
 */
export class LatestOnly {
  private started = 0;

  /** `load()`'s value, or undefined when another load began while it ran (that one decides). */
  async run<T>(load: () => Promise<T>): Promise<{ value: T } | undefined> {
    const mine = ++this.started;
    const value = await load();
    return mine === this.started ? { value } : undefined;
  }
}
