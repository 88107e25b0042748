/**
 * The chat panel through its stable test hooks: `data-testid` = strata-input,
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

/** What the panel showed of the last assistant message, and when (Date.now() in the webview). */
export interface ShownSample {
  t: number;
  text: string;
}

/**
 * Installed in the webview: a MutationObserver that records the last assistant message's text each
 * time it changes (before the browser paints it). A string, because the root tsconfig has no DOM.
 */
const RECORDER = `() => {
  const w = window;
  if (w.__strataShown) w.__strataShown.observer.disconnect();
  const samples = [];
  const read = () => {
    const all = document.querySelectorAll('[data-testid="${TEST_ID.message}"][data-role="assistant"]');
    const last = all[all.length - 1];
    const text = last ? last.textContent || '' : '';
    if (samples.length === 0 || samples[samples.length - 1].text !== text) samples.push({ t: Date.now(), text });
  };
  const observer = new MutationObserver(read);
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  w.__strataShown = { observer, samples };
}`;

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

  /**
   * Removes every chip of the composer (unfolding them first), so a test starts without another's;
   * each × leaves the chip with Undo, which Escape forgets.
   */
  async removeAllChips(): Promise<void> {
    const toggle = this.byTestId('strata-chips-toggle');
    // Only opened: a click on an open list would fold it and hide the chips' ×.
    if ((await toggle.isVisible().catch(() => false)) && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    for (let i = 0; i < 10; i++) {
      const remove = this.byTestId('strata-chip-remove').first();
      if ((await remove.count()) === 0) break;
      await remove.click({ timeout: TIMEOUT.ui }).catch(() => undefined);
      await this.page.waitForTimeout(300);
    }
    for (let i = 0; i < 10; i++) {
      const undo = this.byTestId('strata-chip-undo').first();
      if ((await undo.count()) === 0) break;
      await undo.focus({ timeout: TIMEOUT.ui }).catch(() => undefined);
      await this.page.keyboard.press('Escape');
      await this.page.waitForTimeout(300);
    }
  }

  /** Waits for the panel itself (its input), not only its webview; says what is there instead. */
  async waitUntilReady(timeoutMs = TIMEOUT.webview): Promise<void> {
    try {
      await this.byTestId(TEST_ID.input).first().waitFor({ state: 'visible', timeout: timeoutMs });
      // …and its first state from the host (the composer is shown before it arrives).
      await this.frame.locator('body:not(.strata-loading)').waitFor({ state: 'attached', timeout: timeoutMs });
    } catch {
      const body = normalize(
        await this.frame
          .locator('body')
          .innerText({ timeout: 5_000 })
          .catch(() => '(unreadable)'),
      );
      throw new Error(
        `no [data-testid="${TEST_ID.input}"] in the chat webview within ${timeoutMs / 1000} s; it shows: "${body.slice(0, 200)}"`,
      );
    }
  }

  async text(id: string): Promise<string> {
    return normalize(await this.byTestId(id).first().innerText({ timeout: TIMEOUT.ui }));
  }

  /**
   * Types into the panel's input as a person would (click, keys) and presses Enter to send. What the
   * input held is cleared first, through the field (a message that failed comes back into the input,
   * and the previous test leaves one). Keys go to whatever has focus: right after a window reload the
   * workbench hands focus back to the editor once it has restored it, so the input must hold focus
   * for a moment before typing (else the keys land in the editor).
   */
  async typeAndSend(question: string): Promise<void> {
    const input = this.byTestId(TEST_ID.input).first();
    await input.fill('', { timeout: TIMEOUT.ui });
    const focused = () =>
      input.evaluate((el) => {
        const doc = (el as unknown as { ownerDocument: { activeElement: unknown; hasFocus(): boolean } }).ownerDocument;
        return doc.hasFocus() && doc.activeElement === el;
      });
    let held = 0;
    await poll('the input to hold focus', TIMEOUT.ui, async () => {
      if (!(await focused())) {
        held = 0;
        await input.click({ timeout: TIMEOUT.ui });
        return undefined;
      }
      held++;
      if (held < 3) {
        await new Promise((r) => setTimeout(r, 150));
        return undefined;
      }
      return true;
    });
    await this.page.keyboard.type(question);
    await poll('the input to hold the question', TIMEOUT.ui, async () => {
      const value = await input.evaluate((el) => {
        // The hook may sit on a text field or on a web component wrapping one (no DOM types here).
        const field = el as unknown as FieldLike;
        if (typeof field.value === 'string') return field.value;
        const inner = field.shadowRoot?.querySelector('textarea, input') ?? field.querySelector('textarea, input');
        return typeof inner?.value === 'string' ? inner.value : (field.textContent ?? '');
      });
      return value === question ? true : undefined;
    });
    await this.page.keyboard.press('Enter');
  }

  /** Starts recording what the last assistant message shows, as it changes (see RECORDER). */
  async startRecording(): Promise<void> {
    await this.frame.locator('body').evaluate(`(${RECORDER})()`);
  }

  /** The samples recorded so far; the recording goes on. */
  async recorded(): Promise<ShownSample[]> {
    return (await this.frame
      .locator('body')
      .evaluate('(() => (window.__strataShown ? window.__strataShown.samples.slice() : []))()')) as ShownSample[];
  }

  /** Stops recording; returns the samples. */
  async stopRecording(): Promise<ShownSample[]> {
    return (await this.frame
      .locator('body')
      .evaluate(
        '(() => { const r = window.__strataShown; if (!r) return []; r.observer.disconnect(); delete window.__strataShown; return r.samples; })()',
      )) as ShownSample[];
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
        throw new Error(
          `the reply did not complete within ${timeoutMs / 1000} s: ${k} of ${full} characters shown (samples ${samples.join(', ')}); last text "${normalize(text).slice(0, 160)}"`,
        );
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  }
}

/**
 * How long after the provider sent each text delta the panel showed it: for each delta, the first
 * sample whose shown prefix of `reply` covers everything sent so far. Clocks: the imitation server
 * (Node) and the webview (Chromium) run on the same machine, so Date.now() values compare.
 */
export function deltaLatencies(
  reply: string,
  deltas: readonly { text: string; sentAt: number }[],
  shown: readonly ShownSample[],
): number[] {
  const prefixes = shown.map((s) => ({ t: s.t, k: shownPrefixLength(s.text, reply) }));
  const out: number[] = [];
  let sent = '';
  for (const d of deltas) {
    sent += d.text;
    const need = normalize(sent).length;
    const first = prefixes.find((p) => p.k >= need && p.t >= d.sentAt - 5);
    if (first) out.push(Math.max(0, first.t - d.sentAt));
  }
  return out;
}

export function summarizeMs(values: readonly number[]): string {
  if (values.length === 0) return 'no samples';
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${sorted[sorted.length - 1]} ms (n=${values.length})`;
}
