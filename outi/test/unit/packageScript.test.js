"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
const assert = __importStar(require("assert"));
const fs = __importStar(require("fs"));
const path = __importStar(require("path"));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { marketplaceReadme } = require('../../../scripts/package.js');
describe('packaging: the marketplace README', () => {
    it('drops repository-relative images and unlinks repository-relative links, keeping web links', () => {
        const input = ['# T', '![chart](bench/results/a.svg)', 'See [the tables](bench/results/latest.md) and [site](https://x.test/a) or [below](#settings).', '![badge](https://x.test/b.png)'].join('\n');
        assert.strictEqual(marketplaceReadme(input), ['# T', 'See the tables and [site](https://x.test/a) or [below](#settings).', '![badge](https://x.test/b.png)'].join('\n'));
    });
    it('leaves no SVG image and no relative link in the real README', () => {
        const out = marketplaceReadme(fs.readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8'));
        assert.doesNotMatch(out, /!\[[^\]]*\]\((?!https?:)/);
        assert.doesNotMatch(out, /\]\((?!https?:|#)[^)]*\)/);
        assert.match(out, /npm start/);
    });
});
//# sourceMappingURL=packageScript.test.js.map