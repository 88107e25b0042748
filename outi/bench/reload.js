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
exports.reloadHook = exports.lastReload = void 0;
/**
 * `--reload-at N` for the replay tool (DESIGN §9, §10): every completed turn up to N is saved
 * through the real `ChatStore` (into a temporary folder); after turn N the chat is loaded by a
 * fresh store instance into a fresh `PromptContextEngine` built with the same options, and the
 * replay continues with it. The request dumps must then be byte-identical to a run without reload.
 *
 * If turn N is blocked (nothing sent, so not completed), the reload happens after the next
 * completed turn. Set STRATA_KEEP_RELOAD_DIR=1 to keep the temporary store for inspection.
 */
const fs = __importStar(require("fs"));
const os = __importStar(require("os"));
const path = __importStar(require("path"));
const replay_1 = require("./replay");
const replayCore_1 = require("./replayCore");
const chatStore_1 = require("../src/services/chatStore");
const stateCodec_1 = require("../src/engine/stateCodec");
const engine_1 = require("../src/engine/engine");
function dirBytes(dir) {
    let n = 0;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
    }
    return n;
}
const reloadHook = (traj, strategy, args, tok) => {
    const reloadAt = args.reloadAt;
    // Past the last turn there is nothing to resume (and no temporary store to leave behind).
    if (reloadAt === undefined || reloadAt > traj.turns.length)
        return undefined;
    const chatId = (0, chatStore_1.chatIdFor)(traj.name);
    let root;
    let store;
    let done = false;
    return (turn, engine) => {
        if (done)
            return;
        if (!store) {
            root = fs.mkdtempSync(path.join(os.tmpdir(), `strata-reload-${strategy}-`));
            store = chatStore_1.ChatStore.open(root, { durable: false });
        }
        store.appendTurn(chatId, { state: engine.state, engine: engine.options });
        if (turn < reloadAt)
            return;
        done = true;
        try {
            const t0 = performance.now();
            const loaded = chatStore_1.ChatStore.open(root, { durable: false }).loadChat(chatId);
            const fresh = (0, replayCore_1.engineFor)(traj, { layout: strategy === 'library' ? 'library' : 'transcript', policy: args.policy, tokenizer: tok });
            const next = new engine_1.PromptContextEngine(fresh.options, loaded.state);
            const loadMs = performance.now() - t0;
            if (loaded.warnings.length > 0)
                throw new Error(`reload of ${chatId}: ${loaded.warnings.join('; ')}`);
            const diff = loaded.engine ? (0, stateCodec_1.compareEngineMeta)(loaded.engine, (0, stateCodec_1.engineMeta)(next.options)) : ['no engine options were saved'];
            if (diff.length > 0)
                throw new Error(`reload of ${chatId}: saved options differ from the replay's: ${diff.join('; ')}`);
            exports.lastReload = { chatId, turn, bytesOnDisk: dirBytes(root), loadMs };
            return next;
        }
        finally {
            if (!process.env.STRATA_KEEP_RELOAD_DIR)
                fs.rmSync(root, { recursive: true, force: true });
            else
                process.stderr.write(`reload: chat store kept in ${root}\n`);
        }
    };
};
exports.reloadHook = reloadHook;
(0, replay_1.setReloadHook)(exports.reloadHook);
//# sourceMappingURL=reload.js.map