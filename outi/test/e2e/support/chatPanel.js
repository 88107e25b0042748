"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.ChatPanel = exports.TEST_ID = void 0;
exports.normalize = normalize;
exports.shownPrefixLength = shownPrefixLength;
exports.deltaLatencies = deltaLatencies;
exports.summarizeMs = summarizeMs;
const workbench_1 = require("./workbench");
exports.TEST_ID = {
    input: 'strata-input',
    send: 'strata-send',
    stop: 'strata-stop',
    newChat: 'strata-new-chat',
    chip: 'strata-chip',
    message: 'strata-message',
    meter: 'strata-meter',
    error: 'strata-error',
    requestPreview: 'strata-request-preview',
};
/** Whitespace-insensitive text: rendered markdown wraps and trims what the model sent. */
function normalize(text) {
    return text.replace(/\s+/g, ' ').trim();
}
/** Length of the longest prefix of `reply` that `shown` contains (prefixes nest, so binary search). */
function shownPrefixLength(shown, reply) {
    const haystack = normalize(shown);
    const needle = normalize(reply);
    let lo = 0;
    let hi = needle.length;
    while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (haystack.includes(needle.slice(0, mid)))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
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
    const all = document.querySelectorAll('[data-testid="${exports.TEST_ID.message}"][data-role="assistant"]');
    const last = all[all.length - 1];
    const text = last ? last.textContent || '' : '';
    if (samples.length === 0 || samples[samples.length - 1].text !== text) samples.push({ t: Date.now(), text });
  };
  const observer = new MutationObserver(read);
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  w.__strataShown = { observer, samples };
}`;
class ChatPanel {
    page;
    frame;
    constructor(page, frame) {
        this.page = page;
        this.frame = frame;
    }
    byTestId(id) {
        return this.frame.locator(`[data-testid="${id}"]`);
    }
    messages(role) {
        return this.frame.locator(`[data-testid="${exports.TEST_ID.message}"][data-role="${role}"]`);
    }
    /** Waits for the panel itself (its input), not only its webview; says what is there instead. */
    async waitUntilReady(timeoutMs = workbench_1.TIMEOUT.webview) {
        try {
            await this.byTestId(exports.TEST_ID.input).first().waitFor({ state: 'visible', timeout: timeoutMs });
            // …and its first state from the host (the composer is shown before it arrives).
            await this.frame.locator('body:not(.strata-loading)').waitFor({ state: 'attached', timeout: timeoutMs });
        }
        catch {
            const body = normalize(await this.frame.locator('body').innerText({ timeout: 5_000 }).catch(() => '(unreadable)'));
            throw new Error(`no [data-testid="${exports.TEST_ID.input}"] in the chat webview within ${timeoutMs / 1000} s; it shows: "${body.slice(0, 200)}"`);
        }
    }
    async text(id) {
        return normalize(await this.byTestId(id).first().innerText({ timeout: workbench_1.TIMEOUT.ui }));
    }
    /**
     * Types into the panel's input as a person would (click, keys) and presses Enter to send. What the
     * input held is cleared first, through the field (a message that failed comes back into the input,
     * and the previous test leaves one). Keys go to whatever has focus: right after a window reload the
     * workbench hands focus back to the editor once it has restored it, so the input must hold focus
     * for a moment before typing (else the keys land in the editor).
     */
    async typeAndSend(question) {
        const input = this.byTestId(exports.TEST_ID.input).first();
        await input.fill('', { timeout: workbench_1.TIMEOUT.ui });
        const focused = () => input.evaluate((el) => {
            const doc = el.ownerDocument;
            return doc.hasFocus() && doc.activeElement === el;
        });
        let held = 0;
        await (0, workbench_1.poll)('the input to hold focus', workbench_1.TIMEOUT.ui, async () => {
            if (!(await focused())) {
                held = 0;
                await input.click({ timeout: workbench_1.TIMEOUT.ui });
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
        await (0, workbench_1.poll)('the input to hold the question', workbench_1.TIMEOUT.ui, async () => {
            const value = await input.evaluate((el) => {
                // The hook may sit on a text field or on a web component wrapping one (no DOM types here).
                const field = el;
                if (typeof field.value === 'string')
                    return field.value;
                const inner = field.shadowRoot?.querySelector('textarea, input') ?? field.querySelector('textarea, input');
                return typeof inner?.value === 'string' ? inner.value : (field.textContent ?? '');
            });
            return value === question ? true : undefined;
        });
        await this.page.keyboard.press('Enter');
    }
    /** Starts recording what the last assistant message shows, as it changes (see RECORDER). */
    async startRecording() {
        await this.frame.locator('body').evaluate(`(${RECORDER})()`);
    }
    /** Stops recording; returns the samples. */
    async stopRecording() {
        return (await this.frame.locator('body').evaluate('(() => { const r = window.__strataShown; if (!r) return []; r.observer.disconnect(); delete window.__strataShown; return r.samples; })()'));
    }
    /**
     * Follows the last assistant message until it contains `reply`, sampling its text as it streams.
     * Returns the prefix lengths seen (in order), so the caller can check it grew in steps.
     */
    async followReply(reply, previousCount, timeoutMs = workbench_1.TIMEOUT.reply) {
        const messages = this.messages('assistant');
        await (0, workbench_1.poll)('a new assistant message', workbench_1.TIMEOUT.ui, async () => ((await messages.count()) > previousCount ? true : undefined), 25);
        const last = messages.nth(previousCount);
        const full = normalize(reply).length;
        const samples = [];
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            const text = await last.innerText({ timeout: workbench_1.TIMEOUT.ui });
            const k = shownPrefixLength(text, reply);
            if (samples.length === 0 || samples[samples.length - 1] !== k)
                samples.push(k);
            if (k === full)
                return { samples, text };
            if (Date.now() > deadline) {
                throw new Error(`the reply did not complete within ${timeoutMs / 1000} s: ${k} of ${full} characters shown (samples ${samples.join(', ')}); last text "${normalize(text).slice(0, 160)}"`);
            }
            await new Promise((r) => setTimeout(r, 30));
        }
    }
}
exports.ChatPanel = ChatPanel;
/**
 * How long after the provider sent each text delta the panel showed it: for each delta, the first
 * sample whose shown prefix of `reply` covers everything sent so far. Clocks: the imitation server
 * (Node) and the webview (Chromium) run on the same machine, so Date.now() values compare.
 */
function deltaLatencies(reply, deltas, shown) {
    const prefixes = shown.map((s) => ({ t: s.t, k: shownPrefixLength(s.text, reply) }));
    const out = [];
    let sent = '';
    for (const d of deltas) {
        sent += d.text;
        const need = normalize(sent).length;
        const first = prefixes.find((p) => p.k >= need && p.t >= d.sentAt - 5);
        if (first)
            out.push(Math.max(0, first.t - d.sentAt));
    }
    return out;
}
function summarizeMs(values) {
    if (values.length === 0)
        return 'no samples';
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    return `median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${sorted[sorted.length - 1]} ms (n=${values.length})`;
}
//# sourceMappingURL=chatPanel.js.map