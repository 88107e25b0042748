"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
/**
 * The issue-9 scenario in the real workbench, as a person does it: open Strata, open a file, select
 * lines, run "Strata: Attach Selection" from the Command Palette, type a question in the panel and
 * press Enter, watch the reply stream in and the meter change, reload the window, find the chat
 * again. Strata talks to the OpenAI imitation server (configured in user settings), so the test can
 * check the request that went out. And the error path: a provider fault shows the error banner.
 *
 * What it needs from the panel and host (test hooks from issue 9; all waits bounded):
 * - the webview loads a script from the installed extension's folder (`strata-dev.strata-<version>`);
 * - `strata-input` visible when the panel is ready; a click focuses a text field, typed keys go in,
 *   Enter sends;
 * - after "Strata: Attach Selection" on lines 53–59 of src/invoice.ts, a `strata-chip` whose text
 *   contains `invoice.ts:L53-59`;
 * - `strata-meter` text with a digit once something is attached, different after the turn;
 * - `strata-message[data-role=user]` with the question; a new `strata-message[data-role=assistant]`
 *   (DOM order) whose text shows the reply growing, then all of it (other text inside is allowed);
 * - the word "imitation" in the panel (the model label for a loopback imitation server);
 * - exactly one chat request per turn, to `strata.baseUrl` with `strata.model`, containing the
 *   selected lines verbatim and the question; no visible `strata-error` after a successful turn;
 * - after a page reload and reopening the Strata view: the same chat, question and reply;
 * - a provider error (404 unknown model, not retried) shows a new visible `strata-error`.
 */
const assert = __importStar(require("node:assert/strict"));
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const chatPanel_1 = require("./support/chatPanel");
const session_1 = require("./support/session");
const steps_1 = require("./support/steps");
const workbench_1 = require("./support/workbench");
/** The selection: the loop of `totals()` in the sample workspace. */
const FILE = 'src/invoice.ts';
const START = 53;
const END = 59;
const QUESTION = 'Why is the tax added inside this loop instead of once on the subtotal?';
/** Plain text (no markdown), so what the panel shows is the reply itself. */
const REPLY = 'Each line is taxed after its own discount and at its own category rate, so books and lamps get different rates. ' +
    'Taxing the subtotal once would apply a single rate and round only once, which gives a different total than the tax office expects.';
async function openPanel(session) {
    await (0, workbench_1.openStrataView)(session.page);
    const panel = new chatPanel_1.ChatPanel(session.page, await (0, workbench_1.chatFrame)(session.page));
    await panel.waitUntilReady();
    return panel;
}
describe('e2e: a chat turn in the real workbench', function () {
    this.timeout(300_000);
    let session;
    before(async function () {
        this.timeout(180_000);
        session = await (0, session_1.e2eSession)();
    });
    it('attaches a selection, streams the reply, updates the meter, and shows the chat again after a reload', async () => {
        const steps = new steps_1.Steps(session, 'turn');
        const { page, imitation } = session;
        const lines = fs.readFileSync(path.join(session.workspace, FILE), 'utf8').split('\n');
        const selection = lines.slice(START - 1, END).join('\n');
        const label = new RegExp(`${path.basename(FILE).replace('.', '\\.')}:L${START}-${END}\\b`);
        await steps.run('workbench loaded', () => (0, workbench_1.waitForWorkbench)(page));
        let panel = await steps.run('chat panel open', () => openPanel(session));
        await steps.run(`${FILE} opened from the Explorer`, () => (0, workbench_1.openFile)(page, FILE));
        await steps.run(`lines ${START}-${END} selected`, () => (0, workbench_1.selectLines)(page, START, END, selection.length));
        await steps.run('Strata: Attach Selection run from the Command Palette', () => (0, workbench_1.runCommand)(page, 'Strata: Attach Selection'));
        await steps.run('chip shown for the selection', async () => {
            await (0, workbench_1.openStrataView)(page);
            const chips = panel.byTestId(chatPanel_1.TEST_ID.chip);
            await (0, workbench_1.poll)(`a chip labelled ${label}`, workbench_1.TIMEOUT.ui, async () => {
                const texts = await chips.allInnerTexts();
                return texts.some((t) => label.test((0, chatPanel_1.normalize)(t))) ? true : undefined;
            });
        });
        const meterBefore = await steps.run('meter shows the pending request', async () => {
            const text = await panel.text(chatPanel_1.TEST_ID.meter);
            assert.match(text, /\d/, `meter text: "${text}"`);
            return text;
        });
        const requestsBefore = imitation.chatRequests.length;
        const assistantBefore = await panel.messages('assistant').count();
        imitation.queueReply(REPLY);
        await panel.startRecording();
        await steps.run('question typed in the panel and sent with Enter', () => panel.typeAndSend(QUESTION));
        await steps.run('question shown as a user message', async () => {
            await panel.messages('user').filter({ hasText: QUESTION }).first().waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.ui });
        });
        await steps.run('reply streamed in and completed', async () => {
            const { samples } = await panel.followReply(REPLY, assistantBefore);
            const full = (0, chatPanel_1.normalize)(REPLY).length;
            const partial = samples.filter((k) => k > 0 && k < full);
            (0, session_1.log)(`reply seen growing through ${partial.length} partial states before the full ${full} characters`);
            assert.ok(partial.length >= 2, `the reply did not stream: prefix lengths seen ${samples.join(', ')}`);
            assert.ok(samples.every((k, i) => i === 0 || k >= samples[i - 1]), `the shown reply shrank: ${samples.join(', ')}`);
        });
        await steps.run('no error banner after a successful turn', async () => {
            const shown = await panel.byTestId(chatPanel_1.TEST_ID.error).filter({ visible: true }).allInnerTexts();
            assert.deepEqual(shown.map(chatPanel_1.normalize), [], 'an error banner is shown after a turn that succeeded');
        });
        await steps.run('meter updated after the turn', async () => {
            await (0, workbench_1.poll)('the meter to change', workbench_1.TIMEOUT.ui, async () => {
                const now = await panel.text(chatPanel_1.TEST_ID.meter);
                return now !== meterBefore && /\d/.test(now) ? now : undefined;
            });
        });
        await steps.run('model labelled as the local imitation', async () => {
            await (0, workbench_1.poll)('the word "imitation" in the panel', workbench_1.TIMEOUT.ui, async () => (/imitation/i.test(await panel.frame.locator('body').innerText()) ? true : undefined));
        });
        await steps.run('streaming latency measured', async () => {
            const shown = await panel.stopRecording();
            const deltas = imitation.chatRequests.slice(requestsBefore)[0]?.deltas ?? [];
            const latencies = (0, chatPanel_1.deltaLatencies)(REPLY, deltas, shown);
            assert.ok(latencies.length > 0, `no streamed delta was matched on screen (${deltas.length} sent, ${shown.length} samples)`);
            // Printed, not asserted: the targets (first token ≤ 50 ms, a chunk ≤ 16 ms) are for the
            // panel; on a shared 2-core CI machine these numbers vary run to run.
            (0, session_1.log)(`first delta shown ${latencies[0]} ms after the provider sent it; every delta: ${(0, chatPanel_1.summarizeMs)(latencies)}`);
        });
        await steps.run('request carried the selected lines verbatim', async () => {
            const sent = imitation.chatRequests.slice(requestsBefore);
            assert.equal(sent.length, 1, `chat requests received for one turn: ${sent.length}`);
            const texts = (sent[0].messages ?? []).flatMap((m) => m.content.map((b) => b.text));
            const all = texts.join('\n');
            assert.ok(all.includes(selection), `the request does not contain lines ${START}-${END} of ${FILE} verbatim`);
            assert.ok(all.includes(QUESTION), 'the request does not contain the question');
            assert.equal(sent[0].body && sent[0].body.model, 'gpt-4o');
        });
        await steps.run('Context Layers shows the selection under L3 This turn', async () => {
            const rows = page.locator('[id="workbench.view.extension.strata"] .monaco-list-row');
            const label = `${FILE}:L${START}-${END}`;
            const labels = await (0, workbench_1.poll)('the tree to show the last request', workbench_1.TIMEOUT.ui, async () => {
                const texts = (await rows.locator('.label-name').allInnerTexts()).map((t) => t.trim());
                return texts.some((t) => t.startsWith('Last request')) && texts.includes(label) ? texts : undefined;
            });
            const l3 = labels.indexOf('L3 This turn');
            assert.ok(l3 >= 0, `no L3 row in the tree: ${labels.join(' | ')}`);
            assert.equal(labels[l3 + 1], label, `the row after L3 is ${labels[l3 + 1]}, not the selection`);
        });
        await steps.run('the reply\'s layer chart shows its numbers on hover', async () => {
            const bar = panel.messages('assistant').last().locator('[data-testid="strata-layer-bar"]');
            await bar.hover();
            const tip = panel.byTestId('strata-tooltip').filter({ visible: true }).first();
            await tip.waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.ui });
            const text = (0, chatPanel_1.normalize)(await tip.innerText());
            assert.match(text, /L3/);
            assert.match(text, /cached/i);
        });
        const readme = process.env.STRATA_E2E_README_SCREENSHOT;
        if (readme) {
            await steps.run('README screenshot saved', async () => {
                await (0, workbench_1.runCommand)(page, 'Notifications: Clear All Notifications');
                // A wider side bar shows the panel better: drag the sash between it and the editor.
                const bar = await page.locator('.part.sidebar').boundingBox();
                if (bar) {
                    const y = bar.y + bar.height / 2;
                    await page.mouse.move(bar.x + bar.width + 1, y);
                    await page.mouse.down();
                    await page.mouse.move(bar.x + 480, y, { steps: 8 });
                    await page.mouse.up();
                }
                await page.mouse.move(900, 780);
                await page.screenshot({ path: readme });
                (0, session_1.log)(`README screenshot: ${path.relative(process.cwd(), readme)}`);
            });
        }
        await steps.run('window reloaded', () => (0, workbench_1.reloadWindow)(page));
        panel = await steps.run('chat panel open again', () => openPanel(session));
        await steps.run('chat shown again after the reload', async () => {
            await panel.messages('user').filter({ hasText: QUESTION }).first().waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.webview });
            await panel.messages('assistant').filter({ hasText: (0, chatPanel_1.normalize)(REPLY) }).first().waitFor({ state: 'visible', timeout: workbench_1.TIMEOUT.ui });
        });
    });
    it('shows an error banner when the provider fails', async () => {
        const steps = new steps_1.Steps(session, 'error');
        const { page, imitation } = session;
        const panel = await steps.run('chat panel open', async () => {
            await (0, workbench_1.waitForWorkbench)(page);
            return openPanel(session);
        });
        const requestsBefore = imitation.chatRequests.length;
        const bannersBefore = (await panel.byTestId(chatPanel_1.TEST_ID.error).filter({ visible: true }).allInnerTexts()).map(chatPanel_1.normalize);
        // Every request fails until cleared (not retried: an unknown model is not a transient error).
        imitation.faultEvery(1, { kind: 'unknown-model' });
        try {
            await steps.run('question sent while the provider fails', () => panel.typeAndSend('This request fails on purpose.'));
            await steps.run('error banner shown', async () => {
                // A banner that was not there before the failing request (one already shown does not count).
                const text = await (0, workbench_1.poll)('a new error banner', workbench_1.TIMEOUT.reply, async () => {
                    const now = (await panel.byTestId(chatPanel_1.TEST_ID.error).filter({ visible: true }).allInnerTexts()).map(chatPanel_1.normalize);
                    const fresh = now.filter((t) => t.length > 0 && !bannersBefore.includes(t));
                    return fresh.length > 0 || now.length > bannersBefore.length ? (fresh[0] ?? now[now.length - 1]) : undefined;
                });
                assert.ok(text.length > 0, 'the error banner is empty');
                (0, session_1.log)(`error banner: "${text.slice(0, 160)}"`);
            });
            await steps.run('the failing request reached the provider', async () => {
                const sent = imitation.chatRequests.slice(requestsBefore);
                assert.ok(sent.length >= 1, 'no chat request reached the imitation server');
                assert.ok(sent.every((r) => r.fault === 'unknown-model'));
            });
        }
        finally {
            imitation.faultEvery(undefined);
        }
    });
});
//# sourceMappingURL=chatTurn.test.js.map