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
exports.RequestDocuments = exports.REQUEST_SCHEME = void 0;
const vscode = __importStar(require("vscode"));
const lifecycle_1 = require("../common/lifecycle");
exports.REQUEST_SCHEME = 'strata-request';
/**
 * Read-only virtual documents for "Strata: Show Last Request" (and the Context Layers tree's
 * "Show Content"): the text is produced by the session when the document is opened; nothing is
 * written to disk. Each open gets a fresh URI so the editor never shows stale content.
 */
class RequestDocuments extends lifecycle_1.Disposable {
    contents = new Map();
    counter = 0;
    onDidChangeEmitter = this._register(new vscode.EventEmitter());
    onDidChange = this.onDidChangeEmitter.event;
    constructor() {
        super();
        this._register(vscode.workspace.registerTextDocumentContentProvider(exports.REQUEST_SCHEME, this));
        this._register(vscode.workspace.onDidCloseTextDocument((doc) => {
            if (doc.uri.scheme === exports.REQUEST_SCHEME)
                this.contents.delete(doc.uri.toString());
        }));
    }
    provideTextDocumentContent(uri) {
        return this.contents.get(uri.toString()) ?? '// This Strata document is no longer available; run the command again.\n';
    }
    /** Opens `text` as a read-only document named `name` (its extension picks the language). */
    async open(name, text, language) {
        const uri = vscode.Uri.from({ scheme: exports.REQUEST_SCHEME, path: `/${name}`, query: `n=${++this.counter}` });
        this.contents.set(uri.toString(), text);
        let doc = await vscode.workspace.openTextDocument(uri);
        if (language && doc.languageId !== language)
            doc = await vscode.languages.setTextDocumentLanguage(doc, language);
        await vscode.window.showTextDocument(doc, { preview: true });
        return doc;
    }
}
exports.RequestDocuments = RequestDocuments;
//# sourceMappingURL=requestDocument.js.map