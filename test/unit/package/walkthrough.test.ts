import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMAND_IDS, VIEW_IDS } from '../../../src/host/commands/commandIds';

const root = path.resolve(__dirname, '..', '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const nls: Record<string, string> = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8'));

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; image?: string };
  completionEvents: string[];
}

describe('setup walkthrough', () => {
  const [walkthrough, ...others] = pkg.contributes.walkthroughs as { id: string; steps: Step[] }[];

  it('is one walkthrough of four steps: choose a model, a key, a local server, the chat', () => {
    assert.equal(others.length, 0);
    assert.equal(walkthrough.id, 'strata.setup');
    assert.deepEqual(
      walkthrough.steps.map((s) => s.id),
      ['strata.setup.chooseModel', 'strata.setup.apiKey', 'strata.setup.localServer', 'strata.setup.openChat'],
    );
  });

  it('completes each step on a real command or view, and links the same command in its text', () => {
    const events = walkthrough.steps.map((s) => s.completionEvents);
    assert.deepEqual(events, [
      ['onCommand:strata.selectModel'],
      ['onCommand:strata.setApiKey'],
      ['onCommand:strata.selectLocalServer'],
      ['onView:strata.chat'],
    ]);
    for (const step of walkthrough.steps) {
      for (const e of step.completionEvents) {
        const [kind, id] = e.split(':');
        if (kind === 'onCommand') assert.ok((COMMAND_IDS as readonly string[]).includes(id), `${step.id}: ${id} is a Strata command`);
        else assert.equal(id, VIEW_IDS.chat, `${step.id}: the chat view`);
      }
      const text = nls[step.description.replace(/^%|%$/g, '')];
      const linked = /\(command:([\w.]+)\)/.exec(text)?.[1];
      assert.ok(linked && (COMMAND_IDS as readonly string[]).includes(linked), `${step.id} links a Strata command (${linked})`);
    }
  });

  it('has its media in media/, each file present', () => {
    for (const step of walkthrough.steps) {
      const file = step.media.markdown ?? step.media.image ?? '';
      assert.ok(file.startsWith('media/walkthrough/'), `${step.id}: ${file}`);
      assert.ok(fs.existsSync(path.join(root, file)), `${file} exists`);
    }
  });
});
