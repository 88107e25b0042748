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
exports.TIMEOUT = void 0;
exports.poll = poll;
exports.waitForWorkbench = waitForWorkbench;
exports.showActivity = showActivity;
exports.openStrataView = openStrataView;
exports.chatFrame = chatFrame;
exports.openFile = openFile;
exports.activeEditor = activeEditor;
exports.cursorStatus = cursorStatus;
exports.selectLines = selectLines;
exports.runCommand = runCommand;
exports.reloadWindow = reloadWindow;
exports.notifications = notifications;
/**
 * The VS Code web workbench (code-server 4.139.1 = VS Code 1.139) as a person uses it: the activity
 * bar, the Explorer, the editor, the Command Palette. Selectors were checked against that version
 * (HARNESS.md); every wait is bounded.
 */
const assert = __importStar(require("node:assert/strict"));
exports.TIMEOUT = {
    /** First load of the workbench (extension host start included). */
    workbench: 90_000,
    /** A UI element that should be there soon. */
    ui: 30_000,
    /** The chat webview loading its bundle after the view opens. */
    webview: 45_000,
    /** A streamed reply from the imitation server (a few seconds at its pace). */
    reply: 60_000,
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Polls `probe` until it returns a value (not undefined) or the time is up. */
async function poll(what, timeoutMs, probe, intervalMs = 100) {
    const deadline = Date.now() + timeoutMs;
    let lastError;
    for (;;) {
        try {
            const value = await probe();
            if (value !== undefined)
                return value;
        }
        catch (err) {
            lastError = err;
        }
        if (Date.now() > deadline) {
            const why = lastError instanceof Error ? ` (last error: ${lastError.message.split('\n')[0]})` : '';
            throw new Error(`${what}: not within ${timeoutMs / 1000} s${why}`);
        }
        await sleep(intervalMs);
    }
}
async function waitForWorkbench(page) {
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: exports.TIMEOUT.workbench });
    await page.locator('.part.activitybar').waitFor({ state: 'visible', timeout: exports.TIMEOUT.workbench });
    await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: exports.TIMEOUT.workbench });
}
function activityItem(page, title) {
    return page.locator('.part.activitybar li.action-item', { has: page.locator(`a.action-label[aria-label^="${title}"]`) });
}
/** Shows a view container from the activity bar (clicking an already active one would hide it). */
async function showActivity(page, title) {
    const item = activityItem(page, title);
    await item.waitFor({ state: 'visible', timeout: exports.TIMEOUT.workbench });
    const active = async () => /\bchecked\b/.test((await item.getAttribute('class')) ?? '') && (await page.locator('.part.sidebar').isVisible());
    // Right after a reload the workbench may swallow the first click while it restores its layout:
    // click again (every 3 s) until the container shows.
    let clickedAt = 0;
    await poll(`the ${title} view container to be active`, exports.TIMEOUT.ui, async () => {
        if (await active())
            return true;
        if (Date.now() - clickedAt > 3000) {
            clickedAt = Date.now();
            await item.locator('a.action-label').click();
        }
        return undefined;
    });
}
async function openStrataView(page) {
    await showActivity(page, 'Strata');
    await page.locator('.part.sidebar .composite.title', { hasText: 'Strata' }).first().waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
}
/**
 * The chat view's content: the webview whose document loads Strata's bundle. Found among all
 * webviews (`iframe.webview.ready` › `iframe#active-frame`), so another webview open in the
 * workbench cannot be mistaken for it.
 */
async function chatFrame(page, timeoutMs = exports.TIMEOUT.webview) {
    return poll('the Strata chat webview to load', timeoutMs, async () => {
        const outer = page.locator('iframe.webview.ready');
        const count = await outer.count();
        for (let i = 0; i < count; i++) {
            const inner = outer.nth(i).contentFrame().locator('iframe#active-frame').contentFrame();
            const scripts = await inner.locator('script[src*="strata-dev.strata"]').count().catch(() => 0);
            if (scripts > 0)
                return inner;
        }
        return undefined;
    }, 250);
}
/** Opens a workspace file from the Explorer (expanding its folders), as a pinned editor. */
async function openFile(page, relativePath) {
    await showActivity(page, 'Explorer');
    const parts = relativePath.split('/');
    for (const [i, name] of parts.entries()) {
        const row = page.locator(`.part.sidebar .monaco-list-row[aria-label="${name}"][aria-level="${i + 1}"]`).first();
        await row.waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
        if (i < parts.length - 1) {
            if ((await row.getAttribute('aria-expanded')) !== 'true')
                await row.click();
        }
        else {
            await row.dblclick();
        }
    }
    const tab = page.locator('.part.editor .tabs-container .tab', { hasText: parts[parts.length - 1] });
    await tab.first().waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
    await activeEditor(page).locator('.view-lines').waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
}
function activeEditor(page) {
    return page.locator('.part.editor .editor-group-container.active .monaco-editor').first();
}
/** The status bar's cursor item, e.g. `Ln 59, Col 4 (312 selected)`. */
async function cursorStatus(page) {
    const texts = await page.locator('.part.statusbar .statusbar-item').allInnerTexts();
    return texts.find((t) => /^Ln \d+, Col \d+/.test(t.trim()))?.trim() ?? '';
}
/**
 * Selects whole lines `start`..`end` (1-based, from column 1 to the end of `end`) with the
 * keyboard, as a person would: Go to Line, then Shift+Down and Shift+End. Checks the status bar
 * reports `expectedChars` selected.
 */
async function selectLines(page, start, end, expectedChars) {
    await activeEditor(page).locator('.view-lines').click();
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
    await input.fill(`:${start}`);
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: exports.TIMEOUT.ui });
    await poll(`the cursor at line ${start}`, exports.TIMEOUT.ui, async () => ((await cursorStatus(page)).startsWith(`Ln ${start}, Col 1`) ? true : undefined));
    for (let line = start; line < end; line++)
        await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+End');
    // The status bar catches up with the keys a moment later (Shift+End may not have landed yet).
    let last = '';
    const status = await poll(`the status bar to show ${expectedChars} characters selected`, exports.TIMEOUT.ui, async () => {
        last = await cursorStatus(page);
        return last.startsWith(`Ln ${end},`) && last.includes(`(${expectedChars} selected)`) ? last : undefined;
    }).catch((e) => {
        throw new Error(`${e.message}; the status bar says ${last}`);
    });
    assert.match(status, new RegExp(`\\(${expectedChars} selected\\)`), `status bar says ${status}`);
}
/** Runs a command from the Command Palette (F1) by its full title, e.g. `Strata: Attach Selection`. */
async function runCommand(page, title) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
    await input.fill(`>${title}`);
    // The first (focused) row must be this command: Enter runs the focused row.
    const row = page.locator(`.quick-input-widget .quick-input-list .monaco-list-row.focused[aria-label^="${title}"]`);
    await row.waitFor({ state: 'visible', timeout: exports.TIMEOUT.ui });
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: exports.TIMEOUT.ui });
}
/** Reloads the window (what "Developer: Reload Window" does in the web workbench). */
async function reloadWindow(page) {
    await page.reload({ waitUntil: 'domcontentloaded', timeout: exports.TIMEOUT.workbench });
    await waitForWorkbench(page);
}
/** Texts of the notification toasts on screen. */
async function notifications(page) {
    return page.locator('.notification-toast .notification-list-item-message').allInnerTexts();
}
//# sourceMappingURL=workbench.js.map