/**
 * Grammars load as chunks (see highlight.ts): each chunk's script carries the page's nonce, the only
 * script the panel's CSP lets run, read from the script that is running now. Imported first by main.ts.
 */
declare let __webpack_nonce__: string | undefined;

const current = document.currentScript as HTMLScriptElement | null;
if (current?.nonce) __webpack_nonce__ = current.nonce;
