/**
 * Small helpers shared by the benchmark's performance cases: order statistics, a timer, and the
 * facts about the machine that a reader needs to interpret the timings.
 */
import * as os from 'os';

export interface Stats {
  /** Number of samples. */
  n: number;
  min: number;
  /** Middle sample; the mean of the two middle samples when n is even. */
  median: number;
  /** Nearest-rank 95th percentile: the smallest sample ≥ 95% of the samples. */
  p95: number;
  max: number;
}

/** Rounds to `digits` decimals (0.1 + 0.2 stays 0.3, not 0.30000000000000004). */
export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** min / median / p95 / max of `xs` (all 0 for no samples), rounded to `digits` decimals. */
export function stats(xs: readonly number[], digits = 3): Stats {
  const n = xs.length;
  if (n === 0) return { n: 0, min: 0, median: 0, p95: 0, max: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const median = n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p95 = s[Math.max(0, Math.ceil(0.95 * n) - 1)];
  return { n, min: round(s[0], digits), median: round(median, digits), p95: round(p95, digits), max: round(s[n - 1], digits) };
}

/** Milliseconds `fn` takes, and its result. */
export function timed<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

export interface MachineFacts {
  node: string;
  v8: string;
  platform: string;
  arch: string;
  cpuModel: string;
  cpus: number;
  totalMemoryMB: number;
}

export function machineFacts(): MachineFacts {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: os.platform(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    totalMemoryMB: Math.round(os.totalmem() / (1024 * 1024)),
  };
}

/** `1234567` → `1,234,567` (deterministic, independent of the locale). */
export function formatInt(n: number): string {
  const s = String(Math.round(Math.abs(n)));
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}
