/**
 * The chat panel through its stable test hooks (ARCH.md, issue 9): `data-testid` = strata-input,
 * strata-send, strata-stop, strata-new-chat, strata-chip (one per attachment chip), strata-message
 * with data-role="user" | "assistant", strata-meter, strata-error, strata-request-preview.
 */
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { poll, TIMEOUT } from './workbench';

export const TEST_ID = {
  input: 'strata-input',
  send: 'strata-send',
  stop: 'strata-stop',
  newChat: 'strata-new-chat',
  chip: 'strata-chip',
  message: 'strata-message',
  meter: 'strata-meter',
  error: 'strata-error',
  requestPreview: 'strata-request-preview',
} as const;

export type Role = 'user' | 'assistant';

/** The parts of a DOM element the input check reads (the root tsconfig has no DOM library). */
interface FieldLike {
  value?: unknown;
  textContent?: string | null;
  shadowRoot?: { querySelector(selector: string): FieldLike | null } | null;
  querySelector(selector: string): FieldLike | null;
}

/** Whitespace-insensitive text: rendered markdown wraps and trims what the model sent. */
export function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Length of the longest prefix of `reply` that `shown` contains (prefixes nest, so binary search). */
export function shownPrefixLength(shown: string, reply: string): number {
  const haystack = normalize(shown);
  const needle = normalize(reply);
  let lo = 0;
  let hi = needle.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (haystack.includes(needle.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class ChatPanel {
  constructor(
    readonly page: Page,
    readonly frame: FrameLocator,
  ) {}

  byTestId(id: string): Locator {
    return this.frame.locator(`[data-testid="${id}"]`);
  }

  messages(role: Role): Locator {
    return this.frame.locator(`[data-testid="${TEST_ID.message}"][data-role="${role}"]`);
  }

  /** Waits for the panel itself (its input), not only its webview; says what is there instead. */
  async waitUntilReady(timeoutMs = TIMEOUT.webview): Promise<void> {
    try {
      await this.byTestId(TEST_ID.input).first().waitFor({ state: 'visible', timeout: timeoutMs });
    } catch {
      const body = normalize(await this.frame.locator('body').innerText({ timeout: 5_000 }).catch(() => '(unreadable)'));
      throw new Error(`no [data-testid="${TEST_ID.input}"] in the chat webview within ${timeoutMs / 1000} s; it shows: "${body.slice(0, 200)}"`);
    }
  }

  async text(id: string): Promise<string> {
    return normalize(await this.byTestId(id).first().innerText({ timeout: TIMEOUT.ui }));
  }

  /** Types into the panel's input as a person would (click, keys) and presses Enter to send. */
  async typeAndSend(question: string): Promise<void> {
    const input = this.byTestId(TEST_ID.input).first();
    await input.click({ timeout: TIMEOUT.ui });
    await this.page.keyboard.type(question);
    await poll('the input to hold the question', TIMEOUT.ui, async () => {
      const value = await input.evaluate((el) => {
        // The hook may sit on a text field or on a web component wrapping one (no DOM types here).
        const field = el as unknown as FieldLike;
        if (typeof field.value === 'string') return field.value;
        const inner = field.shadowRoot?.querySelector('textarea, input') ?? field.querySelector('textarea, input');
        return typeof inner?.value === 'string' ? inner.value : (field.textContent ?? '');
      });
      return value.includes(question) ? true : undefined;
    });
    await this.page.keyboard.press('Enter');
  }

  /**
   * Follows the last assistant message until it contains `reply`, sampling its text as it streams.
   * Returns the prefix lengths seen (in order), so the caller can check it grew in steps.
   */
  async followReply(reply: string, previousCount: number, timeoutMs = TIMEOUT.reply): Promise<{ samples: number[]; text: string }> {
    const messages = this.messages('assistant');
    await poll('a new assistant message', TIMEOUT.ui, async () => ((await messages.count()) > previousCount ? true : undefined), 25);
    const last = messages.nth(previousCount);
    const full = normalize(reply).length;
    const samples: number[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await last.innerText({ timeout: TIMEOUT.ui });
      const k = shownPrefixLength(text, reply);
      if (samples.length === 0 || samples[samples.length - 1] !== k) samples.push(k);
      if (k === full) return { samples, text };
      if (Date.now() > deadline) {
        throw new Error(`the reply did not complete within ${timeoutMs / 1000} s: ${k} of ${full} characters shown (samples ${samples.join(', ')}); last text "${normalize(text).slice(0, 160)}"`);
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  }
}
