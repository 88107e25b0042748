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
exports.registerCommands = registerCommands;
const vscode = __importStar(require("vscode"));
const lifecycle_1 = require("../common/lifecycle");
const commandIds_1 = require("./commandIds");
/**
 * Registers every contributed command with its handler. A handler's failure is shown to the user
 * as one clear error message (not rethrown, which would add the editor's generic "command failed"
 * notification); the command then returns undefined. Every declared command must have a handler.
 */
function registerCommands(handlers, log) {
    const store = new lifecycle_1.DisposableStore();
    for (const id of commandIds_1.COMMAND_IDS) {
        const handler = handlers[id];
        if (!handler)
            throw new Error(`no handler for ${id}`);
        store.add(vscode.commands.registerCommand(id, async (...args) => {
            try {
                return await handler(...args);
            }
            catch (e) {
                const message = e instanceof Error ? e.message : String(e);
                log?.error(`${id}: ${message}`);
                void vscode.window.showErrorMessage(`Strata: ${message}`);
                return undefined;
            }
        }));
    }
    return store;
}
//# sourceMappingURL=commands.js.map