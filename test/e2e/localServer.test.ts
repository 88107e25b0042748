/**
 * A local model as a person sets it up: "Strata: Select Model" in the Command Palette, *OpenAI-compatible
 * endpoint…*, the URL of an Ollama server (the imitation, on 127.0.0.1), and one of the models that
 * server lists with its window. Then a file of about 20,000 tokens is attached to a model whose
 * window is 4,096 tokens: the question is answered, the server cuts nothing (Strata set `num_ctx` to
 * the window and sent what fits), the reply says how the file went, and the meter's tooltip says the
 * window came from the server. The user settings are put back afterwards for the tests that follow.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startOllamaImitation, type OllamaImitationServer } from '../support/localImitationServers';
import { ChatPanel, normalize, TEST_ID } from './support/chatPanel';
import { e2eSession, type E2ESession } from './support/session';
import { Steps } from './support/steps';
import { chatFrame, openFile, openStrataView, poll, runCommand, TIMEOUT, waitForWorkbench } from './support/workbench';
import { largeSource } from '../support/largeSource';

const MODEL = 'llama3.2:3b';
const FILE = 'src/ledgerEntries.ts';

describe('e2e: a local server chosen through the model picker', function () {
  this.timeout(300_000);
  let session: E2ESession;
  let ollama: OllamaImitationServer;
  let settingsFile: string;
  let savedSettings: string;

  before(async function () {
    this.timeout(180_000);
    session = await e2eSession();
    ollama = await startOllamaImitation({ ollamaModels: [{ name: MODEL, contextLength: 4096 }], chunkDelayMs: 10 });
    settingsFile = path.join(session.paths.userDataDir, 'User', 'settings.json');
    savedSettings = fs.readFileSync(settingsFile, 'utf8');
    fs.writeFileSync(path.join(session.workspace, FILE), largeSource());
  });

  after(async () => {
    if (savedSettings !== undefined) fs.writeFileSync(settingsFile, savedSettings);
    await ollama?.close();
    fs.rmSync(path.join(session.workspace, FILE), { force: true });
    // The next tests expect the OpenAI imitation again: wait until the panel no longer names the local model.
    try {
      const panel = new ChatPanel(session.page, await chatFrame(session.page));
      await poll('the panel back on the OpenAI imitation', TIMEOUT.ui, async () =>
        (await panel.byTestId('strata-model').first().innerText()).includes(MODEL) ? undefined : true,
      );
    } catch {
      // The next test's own waits say what is wrong.
    }
  });

  it("lists the server's models with their window, answers a 20K-token attachment at 4,096 tokens without a cut, and says where the window came from", async () => {
    const steps = new Steps(session, 'local-server');
    const { page } = session;
    const quickInput = page.locator('.quick-input-widget .quick-input-box input');
    const row = (label: string) => page.locator(`.quick-input-widget .quick-input-list .monaco-list-row[aria-label*="${label}"]`);

    await steps.run('workbench loaded', () => waitForWorkbench(page));
    await steps.run('Strata view open', () => openStrataView(page));
    let panel = new ChatPanel(page, await chatFrame(page));
    await steps.run('chat panel ready', () => panel.waitUntilReady());
    await steps.run('Strata: Select Model run from the Command Palette', async () => {
      // Not runCommand: the picker opens in the same quick input the palette closes.
      await page.keyboard.press('F1');
      await quickInput.waitFor({ state: 'visible', timeout: TIMEOUT.ui });
      await quickInput.fill('>Strata: Select Model');
      // "Strata: Select a Local Server Model" ranks first for these words: click the command's own row.
      await page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-label^="Strata: Select Model"]')
        .first()
        .click({ timeout: TIMEOUT.ui });
    });
    await steps.run('the picker offers a local server, an endpoint and any model id', async () => {
      for (const label of ['Local server…', 'OpenAI-compatible endpoint…', 'Other model id…'])
        await row(label).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    await steps.run('OpenAI-compatible endpoint… chosen', async () => {
      await quickInput.fill('OpenAI-compatible endpoint');
      await page
        .locator('.quick-input-widget .quick-input-list .monaco-list-row.focused[aria-label*="OpenAI-compatible endpoint…"]')
        .waitFor({
          state: 'visible',
          timeout: TIMEOUT.ui,
        });
      await page.keyboard.press('Enter');
    });
    await steps.run("the server's URL typed", async () => {
      await poll('the URL prompt', TIMEOUT.ui, async () =>
        (await page.locator('.quick-input-widget .quick-input-message, .quick-input-widget').first().innerText()).includes('base URL')
          ? true
          : undefined,
      );
      await quickInput.fill(`${ollama.root}/v1`);
      await page.keyboard.press('Enter');
    });
    await steps.run("the server's model listed with its 4,096-token window, and chosen", async () => {
      const model = row(MODEL).first();
      await model.waitFor({ state: 'visible', timeout: TIMEOUT.reply });
      const label = (await model.getAttribute('aria-label')) ?? '';
      assert.match(label, /4,096-token window/, label);
      await page.keyboard.press('Enter');
      await quickInput.waitFor({ state: 'hidden', timeout: TIMEOUT.ui });
    });
    await steps.run('the panel names the local model', () =>
      poll('the model label', TIMEOUT.ui, async () =>
        (await panel.byTestId('strata-model').first().innerText()).includes(MODEL) ? true : undefined,
      ),
    );
    await steps.run(`${FILE} opened and attached`, async () => {
      await openFile(page, FILE);
      await runCommand(page, 'Strata: Attach Active File');
      // Opening the file showed the Explorer: back to the Strata view, whose webview may be a new frame.
      await openStrataView(page);
      panel = new ChatPanel(page, await chatFrame(page));
      await panel.byTestId(TEST_ID.chip).filter({ hasText: 'ledgerEntries.ts' }).first().waitFor({ state: 'visible', timeout: TIMEOUT.ui });
    });
    const before = ollama.requests.length;
    const answered = panel.messages('assistant').count();
    await steps.run('question sent', () => panel.typeAndSend('What do the functions in ledgerEntries.ts compute?'));
    const note = await steps.run('the reply says how the file went', async () => {
      await poll('a new assistant message', TIMEOUT.reply, async () =>
        (await panel.messages('assistant').count()) > (await answered) ? true : undefined,
      );
      const last = panel.messages('assistant').last();
      const shown = last.locator('[data-testid="strata-message-note"]').first();
      await shown.waitFor({ state: 'visible', timeout: TIMEOUT.reply });
      return normalize(await shown.innerText());
    });
    assert.match(
      note,
      /ledgerEntries\.ts (was sent as its outline to fit the context window|is larger than this model's context window)/,
      note,
    );
    const chats = ollama.requests.slice(before).filter((r) => r.path === '/api/chat');
    assert.equal(chats.length, 1, 'one chat request');
    assert.equal(chats[0].numCtx, 4096);
    assert.equal(chats[0].cut, undefined, `the server cut the prompt: ${JSON.stringify(chats[0].cut)}`);
    assert.equal(await panel.byTestId(TEST_ID.error).filter({ visible: true }).count(), 0, 'no error banner');
    await steps.run("the meter's tooltip says the window came from the server", async () => {
      await panel.byTestId(TEST_ID.meter).first().hover();
      const tip = panel.byTestId('strata-tooltip').first();
      await poll('the tooltip', TIMEOUT.ui, async () =>
        (await tip.innerText().catch(() => '')).includes('from the server') ? true : undefined,
      );
      assert.match(normalize(await tip.innerText()), /4,096/);
    });
  });
});
