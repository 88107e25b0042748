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
exports.watchChatStore = watchChatStore;
/**
 * Tells a window when the chat store folder changed on disk: another window of the same folder saved a
 * turn (`chats/<id>.jsonl`), or renamed or deleted a chat (`index.json`). Node's `fs.watch` on the two
 * folders (not recursive: the chats folder is flat), events gathered for `debounceMs` so a save (a blob,
 * a line, the index) is one notification. This window's own saves are reported too; the session's
 * `syncWithDisk` finds nothing to do for them (a stat and a short read).
 *
 * Where `fs.watch` is not available (some network and virtual file systems throw, or the watcher
 * fails later), the folder is polled instead (`pollMs`): the index and chat files' sizes and mtimes.
 */
const fs = __importStar(require("fs"));
const path = __importStar(require("path"));
const CHAT_FILE = /^([a-z0-9][a-z0-9_-]{0,127})\.jsonl$/;
/** Watches the chat store at `root` (`ChatStore.root`); `onChange` is called after each burst of changes. */
function watchChatStore(root, onChange, options = {}) {
    const debounceMs = options.debounceMs ?? 100;
    const chatsDir = path.join(root, 'chats');
    let pendingChats = new Set();
    let pendingIndex = false;
    let timer;
    let disposed = false;
    const watchers = [];
    let poller;
    const flush = () => {
        timer = undefined;
        if (disposed)
            return;
        const change = { chats: [...pendingChats].sort(), index: pendingIndex };
        pendingChats = new Set();
        pendingIndex = false;
        try {
            onChange(change);
        }
        catch (e) {
            options.log?.(`chat store watcher: ${e.message}`);
        }
    };
    const note = (chatId, index) => {
        if (disposed)
            return;
        if (chatId)
            pendingChats.add(chatId);
        if (index)
            pendingIndex = true;
        timer ??= setTimeout(flush, debounceMs);
    };
    const startPolling = () => {
        if (poller || disposed)
            return;
        for (const w of watchers.splice(0))
            w.close();
        let last = snapshot(root);
        poller = setInterval(() => {
            const now = snapshot(root);
            if (now.index !== last.index)
                note(undefined, true);
            for (const id of new Set([...now.chats.keys(), ...last.chats.keys()]))
                if (now.chats.get(id) !== last.chats.get(id))
                    note(id, false);
            last = now;
        }, options.pollMs ?? 2000);
        poller.unref?.();
    };
    if (options.poll)
        startPolling();
    else {
        try {
            const onError = (e) => {
                options.log?.(`chat store watcher failed (${e.message}); polling the folder instead`);
                startPolling();
            };
            const chats = fs.watch(chatsDir, { persistent: false }, (_event, name) => {
                const m = name ? CHAT_FILE.exec(String(name)) : null;
                // No file name (some platforms): something in the folder changed.
                if (m || !name)
                    note(m?.[1], !name);
            });
            chats.on('error', onError);
            watchers.push(chats);
            const top = fs.watch(root, { persistent: false }, (_event, name) => {
                if (!name || String(name) === 'index.json')
                    note(undefined, true);
            });
            top.on('error', onError);
            watchers.push(top);
        }
        catch (e) {
            options.log?.(`chat store watcher could not start (${e.message}); polling the folder instead`);
            startPolling();
        }
    }
    return {
        dispose() {
            disposed = true;
            if (timer)
                clearTimeout(timer);
            if (poller)
                clearInterval(poller);
            for (const w of watchers.splice(0))
                w.close();
        },
    };
}
/** Sizes and mtimes of the index and the chat files (the polling fallback). */
function snapshot(root) {
    const stamp = (file) => {
        try {
            const st = fs.statSync(file);
            return `${st.size}:${st.mtimeMs}`;
        }
        catch {
            return '-';
        }
    };
    const chats = new Map();
    let names = [];
    try {
        names = fs.readdirSync(path.join(root, 'chats'));
    }
    catch {
        // Not created yet.
    }
    for (const name of names) {
        const m = CHAT_FILE.exec(name);
        if (m)
            chats.set(m[1], stamp(path.join(root, 'chats', name)));
    }
    return { index: stamp(path.join(root, 'index.json')), chats };
}
//# sourceMappingURL=storeWatcher.js.map