import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { marketplaceReadme } = require('../../../../scripts/package.js') as { marketplaceReadme: (t: string) => string };

describe('packaging: the marketplace README', () => {
  it('drops repository-relative images and unlinks repository-relative links, keeping web links', () => {
    const input = [
      '# T',
      '![chart](bench/results/a.svg)',
      'See [the tables](bench/results/latest.md) and [site](https://x.test/a) or [below](#settings).',
      '![badge](https://x.test/b.png)',
    ].join('\n');
    assert.strictEqual(
      marketplaceReadme(input),
      ['# T', 'See the tables and [site](https://x.test/a) or [below](#settings).', '![badge](https://x.test/b.png)'].join('\n'),
    );
  });

  it('leaves no SVG image and no relative link in the real README', () => {
    const out = marketplaceReadme(fs.readFileSync(path.resolve(__dirname, '../../../../README.md'), 'utf8'));
    assert.doesNotMatch(out, /!\[[^\]]*\]\((?!https?:)/);
    assert.doesNotMatch(out, /\]\((?!https?:|#)[^)]*\)/);
    assert.match(out, /npm start/);
  });
});
