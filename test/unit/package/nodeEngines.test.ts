/**
 * package.json `engines.node` and the installed tree agree: every package in the lockfile
 * that names a Node range admits the oldest Node the extension says it supports, so `npm ci` on that
 * Node prints no EBADENGINE. (webpack-cli 7.3 pulled in rechoir 1.0, which wants Node ≥ 22.15.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');

type Version = [number, number, number];

function parse(v: string): { v: Version; parts: number } {
  const bits = v
    .replace(/^v/, '')
    .split('.')
    .filter((b) => b !== '' && b !== 'x' && b !== '*' && b !== 'X');
  const n = bits.map((b) => Number(b));
  if (n.some((x) => !Number.isInteger(x))) throw new Error(`cannot read version ${v}`);
  return { v: [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0], parts: n.length };
}

function cmp(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `node` satisfies a semver range of the forms npm packages use for `engines.node`. */
export function satisfies(node: Version, range: string): boolean {
  return range.split('||').some((alt) => {
    const tokens = alt
      .trim()
      .replace(/([<>]=?|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    if (tokens.length === 0) return true;
    return tokens.every((t) => {
      if (t === '*' || t === 'x') return true;
      const m = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(t)!;
      const { v, parts } = parse(m[2]);
      switch (m[1]) {
        case '>=':
          return cmp(node, v) >= 0;
        case '>':
          return cmp(node, v) > 0;
        case '<=':
          return cmp(node, v) <= 0;
        case '<':
          return cmp(node, v) < 0;
        case '^':
          return cmp(node, v) >= 0 && node[0] === v[0];
        case '~':
          return cmp(node, v) >= 0 && node[0] === v[0] && (parts < 2 || node[1] === v[1]);
        default:
          // `20`, `20.x`, `20.19`: every given part must match.
          return v.slice(0, parts).every((x, i) => node[i] === x);
      }
    });
  });
}

describe('Node engines (package.json and the lockfile agree)', () => {
  it('reads the ranges npm packages use', () => {
    const n: Version = [20, 19, 0];
    assert.equal(satisfies(n, '>= 22.15.0'), false);
    assert.equal(satisfies(n, '>=20.19.0'), true);
    assert.equal(satisfies(n, '^18.18.0 || ^20.9.0 || >=21.1.0'), true);
    assert.equal(satisfies(n, '20 || >=22'), true);
    assert.equal(satisfies(n, '18 || >=22'), false);
    assert.equal(satisfies(n, '>=16 || 14 >=14.17'), true);
    assert.equal(satisfies(n, '6.* || 8.* || >= 10.*'), true);
    assert.equal(satisfies(n, '>=0.6.11 <=0.7.0 || >=0.7.3'), true);
    assert.equal(satisfies(n, '^20.20.0'), false);
  });

  it('every package that names a Node range admits the oldest Node in engines.node', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
    const min = /^>=\s*(\d+\.\d+\.\d+)$/.exec(pkg.engines.node);
    assert.ok(min, `engines.node is a minimum (>=x.y.z): ${pkg.engines.node}`);
    const oldest = parse(min[1]).v;
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refused: string[] = [];
    for (const [where, p] of Object.entries(lock.packages)) {
      const range = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined;
      if (where === '' || !range) continue;
      if (!satisfies(oldest, range)) refused.push(`${where.replace(/^node_modules\//, '')}@${p.version} needs node ${range}`);
    }
    assert.deepEqual(refused, [], `engines.node says ${pkg.engines.node}`);
  });
});
