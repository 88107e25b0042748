#!/usr/bin/env node
'use strict';
// `npm run package` (and the packaging step of `npm test`): builds the VSIX non-interactively.
// The Marketplace page resolves nothing relative to the repository (the package names no public
// repository to serve images and documents from), so the VSIX gets a copy of README.md without its
// repository-relative images and with its links to repository documents as plain text.
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');

/** README.md minus repository-relative images; repository-relative links become plain text. */
function marketplaceReadme(text) {
  return text
    .split('\n')
    .filter((line) => !/^!\[[^\]]*\]\((?!https?:)[^)]*\)\s*$/.test(line))
    .join('\n')
    .replace(/\[([^\]]+)\]\((?!https?:|#)[^)]*\)/g, '$1');
}

function packageVsix(out) {
  // vsce looks the readme up among the packaged files, so it lives in the repository root
  // (git-ignored, allowed by .vscodeignore) while packaging.
  const readme = path.join(root, 'README.marketplace.md');
  fs.writeFileSync(readme, marketplaceReadme(fs.readFileSync(path.join(root, 'README.md'), 'utf8')));
  const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  const args = [vsce, 'package', '--no-dependencies', '--readme-path', path.relative(root, readme)];
  if (out) args.push('--out', out);
  // stdin closed: vsce must not stop to ask (missing LICENSE or repository would make it ask).
  try {
    return spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] }).status === 0;
  } finally {
    fs.rmSync(readme, { force: true });
  }
}

module.exports = { marketplaceReadme, packageVsix };

if (require.main === module) {
  process.exit(packageVsix(process.argv[2]) ? 0 : 1);
}
