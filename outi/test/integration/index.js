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
exports.run = run;
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const Mocha = require("mocha");
const vscode = __importStar(require("vscode"));
function findTests(dir) {
    return fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
            return findTests(full);
        }
        return entry.name.endsWith('.test.js') ? [full] : [];
    })
        .sort();
}
/**
 * Entry point VS Code calls inside the extension host (extensionTestsPath). Runs every
 * `*.test.js` beside this file in one mocha run and ends with a plain `N passed, N failed` line,
 * which reaches the harness through the workbench's automation log.
 */
function run() {
    const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
    const files = findTests(__dirname);
    files.forEach((file) => mocha.addFile(file));
    // The harness shows the extension host's output from this line on (scripts/harness/run-integration.js).
    console.log(`Strata integration suite: ${files.length} file(s), VS Code ${vscode.version} (${vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop'} UI)`);
    return new Promise((resolve, reject) => {
        try {
            const runner = mocha.run((failures) => {
                const stats = runner.stats;
                const passed = stats?.passes ?? 0;
                const failed = stats?.failures ?? failures;
                const skipped = stats?.pending ?? 0;
                console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
                if (failures > 0) {
                    reject(new Error(`${failures} integration test(s) failed`));
                }
                else if (passed === 0) {
                    reject(new Error('no integration test ran'));
                }
                else {
                    resolve();
                }
            });
        }
        catch (err) {
            console.log('0 passed, 1 failed');
            reject(err instanceof Error ? err : new Error(String(err)));
        }
    });
}
//# sourceMappingURL=index.js.map