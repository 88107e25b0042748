/** Runs the replay's command line (`bench/replayCli.ts` `main`) in-process, capturing what it prints. */
import { main } from '../../bench/replayCli';

export async function captureReplay(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const ow = process.stdout.write.bind(process.stdout);
  const ew = process.stderr.write.bind(process.stderr);
  (process.stdout as unknown as { write: unknown }).write = (s: string) => (out.push(String(s)), true);
  (process.stderr as unknown as { write: unknown }).write = (s: string) => (err.push(String(s)), true);
  try {
    const code = await main(argv);
    return { code, out: out.join(''), err: err.join('') };
  } finally {
    (process.stdout as unknown as { write: unknown }).write = ow;
    (process.stderr as unknown as { write: unknown }).write = ew;
  }
}
