'use strict';
// The workspace the integration suite runs in: a multi-root workspace (folders `app` and `lib`)
// with what the isolation tests need — an excluded secrets file, a symlink that points out of the
// workspace, a symlink to an excluded file, a binary file, a file over the 8 MB limit and a 5 MB
// text file — plus a file outside every workspace folder. Generated at run time (never committed).
const fs = require('node:fs');
const path = require('node:path');

const MB = 1024 * 1024;

/** Deterministic text of about `bytes` bytes: numbered lines of code-like content. */
function bigText(bytes) {
  const lines = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line = `export const value${i} = computeSomething(${i}, "item-${i % 97}"); // line ${i}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

function write(file, content) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** Creates the fixture under `root` (emptied first); returns the .code-workspace path and folders. */
function createFixtureWorkspace(root) {
  fs.rmSync(root, { recursive: true, force: true });
  const app = path.join(root, 'app');
  const lib = path.join(root, 'lib');
  const outside = path.join(root, 'outside');
  write(path.join(outside, 'secret.txt'), 'this file is outside every workspace folder\n');
  write(path.join(app, 'README.md'), '# Strata integration workspace\n');
  write(
    path.join(app, 'src', 'main.ts'),
    [
      "import { add } from './math';",
      '',
      'export function main(argv: string[]): number {',
      '  const [a, b] = argv.map(Number);',
      '  return add(a, b);',
      '}',
      '',
      'console.log(main(process.argv.slice(2)));',
      '',
    ].join('\n'),
  );
  write(
    path.join(app, 'src', 'math.ts'),
    'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n',
  );
  write(path.join(app, 'src', 'crlf.ts'), 'const a = 1;\r\nconst b = 2;\r\nconst c = 3;\r\n');
  write(path.join(app, '.env'), 'FAKE_TOKEN=not-a-real-secret\n');
  write(path.join(app, 'keys', 'server.pem'), '-----BEGIN FAKE KEY-----\n-----END FAKE KEY-----\n');
  write(path.join(app, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01, 0x02, 0x00]));
  write(path.join(app, 'huge.log'), bigText(9 * MB));
  write(path.join(app, 'big.txt'), bigText(5 * MB));
  write(path.join(app, 'AGENTS.md'), '# Project instructions\n\nAnswer briefly.\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(app, 'link-out.txt'));
  fs.symlinkSync('.env', path.join(app, 'link-env.txt'));
  write(path.join(lib, 'index.ts'), 'export const version = "1.0.0";\n');
  const workspaceFile = path.join(root, 'strata.code-workspace');
  write(workspaceFile, JSON.stringify({ folders: [{ path: 'app' }, { path: 'lib' }], settings: {} }, null, 2));
  return { workspaceFile, folders: [app, lib], outside };
}

module.exports = { createFixtureWorkspace };
