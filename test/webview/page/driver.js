// Test driver for the standalone panel page: a fake `acquireVsCodeApi` that records what the panel
// posts, a UI-state store that survives a reload of the page (like VS Code's getState/setState
// survives hiding the view), a log of CSP violations and page errors, and timing helpers for the
// benchmark. Loaded (with the page's nonce) before the panel's bundle.
(function () {
  'use strict';
  const STATE_KEY = 'strata-test-ui-state';
  const posted = [];
  /** Everything ever posted (clearPosted does not touch it): every message is validated at the end. */
  const allPosted = [];
  const violations = [];
  const errors = [];
  /** kind → response ({ok, value} | {ok:false, error}); requests of other kinds stay unanswered. */
  let autoRespond = {};
  let acquired = false;
  let uiState = null;
  /** `replaceUiState` was called: what the page writes from now on is dropped (the next load reads the replacement). */
  let uiStateReplaced = false;
  try {
    uiState = JSON.parse(sessionStorage.getItem(STATE_KEY) || 'null');
  } catch {
    uiState = null;
  }

  document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective}: ${e.blockedURI || e.sample || ''}`));
  window.addEventListener('error', (e) => errors.push(String(e.message)));
  window.addEventListener('unhandledrejection', (e) => errors.push(`unhandled rejection: ${String(e.reason)}`));
  const warn = console.warn.bind(console);
  console.warn = (...args) => {
    errors.push(`console.warn: ${args.map(String).join(' ')}`);
    warn(...args);
  };

  window.acquireVsCodeApi = function () {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage(message) {
        // VS Code structured-clones what a webview posts.
        const copy = structuredClone(message);
        posted.push(copy);
        allPosted.push(copy);
        if (copy && copy.type === 'request' && copy.request && Object.prototype.hasOwnProperty.call(autoRespond, copy.request.kind)) {
          const answer = autoRespond[copy.request.kind];
          setTimeout(() => window.postMessage({ type: 'response', requestId: copy.requestId, ...answer }, '*'), 0);
        }
      },
      getState() {
        return uiState;
      },
      setState(state) {
        if (uiStateReplaced) return state;
        uiState = state;
        sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
        return state;
      },
    });
  };

  const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
  /** Resolves after the next frame has been produced (a task queued from rAF runs after paint). */
  const afterPaint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0)));

  window.strataTest = {
    posted: () => posted.slice(),
    allPosted: () => allPosted.slice(),
    clearPosted: () => {
      posted.length = 0;
    },
    violations: () => violations.slice(),
    errors: () => errors.slice(),
    setAutoRespond: (map) => {
      autoRespond = map || {};
    },
    clearUiState: () => {
      sessionStorage.removeItem(STATE_KEY);
      uiState = null;
    },
    uiState: () => uiState,
    /** The state the next load of the page finds (as if saved by an earlier version); later writes of this page are dropped. */
    replaceUiState: (state) => {
      uiStateReplaced = true;
      uiState = state;
      sessionStorage.setItem(STATE_KEY, JSON.stringify(state));
    },
    /** Posts as the extension host would (a `message` event on the window). */
    post: (message) => window.postMessage(message, '*'),
    afterPaint,
    fontsReady: () => document.fonts.ready.then(() => undefined),

    /** Posts `init` and measures until the panel has painted it. */
    async measureInit(message) {
      const t0 = performance.now();
      let handled = 0;
      const done = new Promise((resolve) => {
        const onMessage = () => {
          window.removeEventListener('message', onMessage);
          handled = performance.now();
          afterPaint().then(resolve);
        };
        window.addEventListener('message', onMessage);
      });
      window.postMessage(message, '*');
      const painted = await done;
      const messages = document.querySelectorAll('[data-testid="strata-message"]').length;
      // Messages far from the viewport get their markdown when the panel is idle: until when?
      while (document.querySelector('.md-pending')) await nextFrame();
      return { handledMs: handled - t0, paintedMs: painted - t0, allMarkdownMs: performance.now() - t0, messages };
    },

    /**
     * Streams `count` chunks one at a time at random phases of the frame, measuring for each:
     * message posted → handled (text in the DOM), and → the next frame with its layout done.
     */
    async measureChunks(chatId, turnId, firstSeq, count, texts) {
      const body = () =>
        document.querySelector('[data-testid="strata-message"][data-status="streaming"] [data-testid="strata-message-body"]');
      const samples = [];
      for (let i = 0; i < count; i++) {
        await new Promise((r) => setTimeout(r, 4 + Math.random() * 24));
        const marker = `m${i}q`;
        const text = `${texts[i % texts.length]} ${marker}`;
        const sample = await new Promise((resolve) => {
          const t0 = performance.now();
          const onMessage = () => {
            window.removeEventListener('message', onMessage);
            const handled = performance.now();
            const el = body();
            const inDom = !!el && el.textContent.includes(marker);
            requestAnimationFrame(() => {
              const frameStart = performance.now();
              const inFrame = !!el && el.textContent.includes(marker);
              if (el) el.getBoundingClientRect();
              const laidOut = performance.now();
              resolve({ handled: handled - t0, frame: laidOut - t0, layout: laidOut - frameStart, inDom, inFrame });
            });
          };
          window.addEventListener('message', onMessage);
          window.postMessage({ type: 'chunk', chatId, turnId, seq: firstSeq + i, text }, '*');
        });
        samples.push(sample);
      }
      return samples;
    },
    nextFrame,
  };
})();
