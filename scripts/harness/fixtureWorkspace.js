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
  writeCodeIntelProject(path.join(app, 'intel'));

  const workspaceFile = path.join(root, 'strata.code-workspace');
  write(workspaceFile, JSON.stringify({ folders: [{ path: 'app' }, { path: 'lib' }], settings: {} }, null, 2));
  return { workspaceFile, folders: [app, lib], outside };
}

/**
 * A small TypeScript project for code intelligence (test/integration/codeIntel.test.ts): a report that
 * calls functions of two other files, one of them imported through a tsconfig `paths` alias, and a
 * file the test excludes.
 */
function writeCodeIntelProject(root) {
  write(
    path.join(root, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, baseUrl: '.', paths: { '@shapes/*': ['shapes/*'] } },
        include: ['**/*.ts'],
      },
      null,
      2,
    ),
  );
  write(
    path.join(root, 'shapes', 'geometry.ts'),
    [
      'export interface Rect {',
      '  w: number;',
      '  h: number;',
      '}',
      '',
      'export function area(r: Rect): number {',
      '  return r.w * r.h;',
      '}',
      '',
      'export function perimeter(r: Rect): number {',
      '  return 2 * (r.w + r.h);',
      '}',
      '',
      'export function square(side: number): number {',
      '  return side * side;',
      '}',
      '',
    ].join('\n'),
  );
  write(
    path.join(root, 'format.ts'),
    [
      "export const UNIT = 'm';",
      '',
      'export function label(value: number, unit = UNIT): string {',
      '  return `${value.toFixed(2)} ${unit}`;',
      '}',
      '',
      'export function padded(text: string, width: number): string {',
      "  return text.padStart(width, ' ');",
      '}',
      '',
    ].join('\n'),
  );
  // Member accesses: `this.rect` beside a parameter `rect`, `rect.w` beside a local `w`, `super.describe()`.
  write(
    path.join(root, 'members.ts'),
    [
      "import type { Rect } from '@shapes/geometry';",
      '',
      'export class Base {',
      '  describe(r: Rect): string {',
      '    return `${r.w}x${r.h}`;',
      '  }',
      '}',
      '',
      'export class Room extends Base {',
      '  rect: Rect = { w: 2, h: 3 };',
      '  summary(rect: Rect): string {',
      '    const w = rect.w;',
      '    return `${w} ${this.rect.h} ${super.describe(rect)}`;',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  write(path.join(root, 'hidden', 'token.ts'), ['export function token(): string {', "  return 'not-a-real-token';", '}', ''].join('\n'));
  write(
    path.join(root, 'report.ts'),
    [
      "import { area, perimeter, square, type Rect } from '@shapes/geometry';",
      "import { label, padded } from './format';",
      "import { token } from './hidden/token';",
      '',
      'export function roomLine(room: Rect): string {',
      '  return label(area(room));',
      '}',
      '',
      'export function signed(text: string): string {',
      "  return text + ' ' + token();",
      '}',
      '',
      'export function squareLabel(side: number): string {',
      '  return label(square(side));',
      '}',
      '',
      'export function summary(rooms: Rect[], width: number): string[] {',
      '  const lines: string[] = [];',
      '  let total = 0;',
      '  let edge = 0;',
      '  for (const room of rooms) {',
      '    const a = area(room);',
      '    const p = perimeter(room);',
      '    total += a;',
      '    edge += p;',
      '    const text = label(a);',
      '    lines.push(padded(text, width));',
      '  }',
      '  const average = rooms.length > 0 ? total / rooms.length : 0;',
      '  const largest = rooms.reduce((m, r) => Math.max(m, area(r)), 0);',
      '  const smallest = rooms.reduce((m, r) => Math.min(m, area(r)), Infinity);',
      "  lines.push('');",
      '  lines.push(padded(`total ${label(total)}`, width));',
      "  lines.push(padded(`edges ${label(edge, 'm')}`, width));",
      '  lines.push(padded(`average ${label(average)}`, width));',
      '  lines.push(padded(`largest ${label(largest)}`, width));',
      '  if (rooms.length > 0) {',
      '    lines.push(padded(`smallest ${label(smallest)}`, width));',
      '  }',
      '  const wide = rooms.filter((r) => r.w > r.h).length;',
      '  const tall = rooms.length - wide;',
      '  lines.push(padded(`wide ${wide}, tall ${tall}`, width));',
      '  lines.push(padded(`rooms ${rooms.length}`, width));',
      '  lines.push(roomLine({ w: 1, h: 1 }));',
      "  lines.push(signed('report'));",
      '  return lines;',
      '}',
      '',
    ].join('\n'),
  );
}

module.exports = { createFixtureWorkspace };
