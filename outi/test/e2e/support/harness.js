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
exports.harnessConfig = exports.codeServer = exports.repoRoot = void 0;
/**
 * The harness scripts (plain JS under scripts/, shared with the integration runner and `npm start`),
 * loaded at run time from the repository root: the compiled test lives in out/test/e2e/, the
 * scripts do not move, so a relative import would not resolve in both places.
 */
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
function findRepoRoot(from) {
    for (let dir = from;; dir = path.dirname(dir)) {
        if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'harness', 'codeServer.js')))
            return dir;
        if (path.dirname(dir) === dir)
            throw new Error(`no repository root above ${from}`);
    }
}
exports.repoRoot = findRepoRoot(__dirname);
function load(relative) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(path.join(exports.repoRoot, relative));
}
exports.codeServer = load('scripts/harness/codeServer.js');
exports.harnessConfig = load('scripts/harness/config.js');
//# sourceMappingURL=harness.js.map