import { parseHostToWebviewMessage, type WebviewToHostMessage } from '../src/protocol/messages';
import { vscodeApi } from './vscodeApi';

/** Chat panel entry point. Placeholder: shows who it is and tells the host it is ready. */
function main(): void {
  const app = document.getElementById('app');
  if (!app) {
    return;
  }
  const box = document.createElement('div');
  box.className = 'strata-placeholder';
  const heading = document.createElement('h2');
  heading.textContent = 'Strata';
  const text = document.createElement('p');
  text.textContent = 'The chat arrives in a later version.';
  box.append(heading, text);
  app.replaceChildren(box);

  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const message = parseHostToWebviewMessage(event.data);
    if (message?.type === 'init') {
      heading.textContent = `Strata ${message.extensionVersion}`;
      document.body.dataset.strataReady = 'true';
    }
  });

  const ready: WebviewToHostMessage = { type: 'ready' };
  vscodeApi().postMessage(ready);
}

main();
