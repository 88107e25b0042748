/**
 * Named steps: each one logs, takes a screenshot when it succeeds, and on failure takes a
 * `FAILED-…` screenshot and rethrows with the step's name and the screenshot's path, so a red run
 * says which step broke and where to look.
 */
import * as path from 'node:path';
import { log, type E2ESession } from './session';

/** Playwright appends the browser's whole stderr when the browser died; the cause is at the top. */
function firstLines(message: string, max = 12): string {
  const lines = message.split('\nBrowser logs:')[0].split('\n');
  return lines.length > max ? `${lines.slice(0, max).join('\n')}\n    … (${lines.length - max} more lines)` : lines.join('\n');
}

export class StepError extends Error {
  constructor(
    readonly step: string,
    cause: unknown,
    readonly screenshot: string | undefined,
    logHint: string,
  ) {
    const reason = firstLines(cause instanceof Error ? cause.message : String(cause));
    super(
      [
        `step "${step}" failed: ${reason}`,
        `    screenshot: ${screenshot ? path.relative(process.cwd(), screenshot) : '(none: the page could not be captured)'}`,
        `    ${logHint}`,
      ].join('\n'),
    );
    this.name = 'StepError';
  }
}

export class Steps {
  private readonly startedAt = Date.now();

  constructor(
    private readonly session: E2ESession,
    /** Prefix of this test's screenshots. */
    private readonly test: string,
  ) {}

  async run<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const started = Date.now();
    let value: T;
    try {
      value = await fn();
    } catch (err) {
      const shot = await this.session.screenshot(`${this.test}-${name}`, true).catch(() => undefined);
      log(`FAILED  ${name} (${Date.now() - started} ms)`);
      throw new StepError(name, err, shot, this.session.logHint());
    }
    const shot = await this.session.screenshot(`${this.test}-${name}`).catch(() => undefined);
    log(`ok      ${name} (${Date.now() - started} ms${shot ? `, ${path.basename(shot)}` : ''})`);
    return value;
  }

  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }
}
