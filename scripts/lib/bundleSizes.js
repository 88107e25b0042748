'use strict';
// The bundles whose sizes have limits: the extension's entry bundle (what activation loads) and
// the webview bundle. The files loaded later (LangChain and the tokenizer's ranks) are listed too.
const fs = require('node:fs');
const path = require('node:path');

const LIMITS = { 'dist/extension.js': 3 * 1024 * 1024, 'dist/webview/main.js': 400 * 1024 };

function jsFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return jsFiles(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

/** Prints every bundle file's size; returns false when a limited one is over its limit. */
function checkBundleSizes(root) {
  let ok = true;
  const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
  for (const file of jsFiles(path.join(root, 'dist')).sort()) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const size = fs.statSync(file).size;
    const limit = LIMITS[rel];
    const note = limit
      ? ` (limit ${kb(limit)}${size > limit ? ': OVER' : ''})`
      : rel.startsWith('dist/webview/')
        ? ''
        : ' (loaded on first use)';
    if (limit && size > limit) ok = false;
    console.log(`  ${rel.padEnd(32)} ${kb(size).padStart(8)}${note}`);
  }
  for (const rel of Object.keys(LIMITS)) {
    if (!fs.existsSync(path.join(root, rel))) {
      console.error(`  ${rel} is missing`);
      ok = false;
    }
  }
  return ok;
}

module.exports = { checkBundleSizes, LIMITS };
