/**
 * Long synchronous work cut into slices: the caller checks `due` between pieces of work and awaits
 * `pause()` when it is, so the event loop (the editor's requests, the panel, a Stop) is never held
 * for much longer than one slice.
 */

/** How long a slice runs before it gives the event loop a turn (ms): well under a 50 ms stall. */
export const SLICE_MS = 8;

export class TimeSlice {
  private started = performance.now();
  /** Times the work gave the event loop a turn. */
  pauses = 0;

  constructor(
    private readonly ms = SLICE_MS,
    private readonly signal?: AbortSignal,
  ) {}

  /** This slice has run its time: the caller should `pause()`. */
  get due(): boolean {
    return performance.now() - this.started >= this.ms;
  }

  /** Gives the event loop a turn and starts a new slice; rejects when the signal aborted meanwhile. */
  async pause(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.pauses++;
    this.started = performance.now();
    this.signal?.throwIfAborted();
  }
}
