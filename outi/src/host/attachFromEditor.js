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
exports.fileSpec = fileSpec;
exports.selectionLines = selectionLines;
exports.selectionSpecs = selectionSpecs;
exports.openEditorDocuments = openEditorDocuments;
exports.uriSpec = uriSpec;
/**
 * What "attach" means in the editor: the active file, the active selections, every open text
 * editor. Produces attachment specs (paths as the workspace port names them) or, for documents that
 * cannot be named, the refusal to show.
 */
const vscode = __importStar(require("vscode"));
const hostWorkspace_1 = require("./hostWorkspace");
const ATTACHABLE_SCHEMES = new Set(['file', 'untitled', 'vscode-remote', 'vscode-vfs', 'vscode-userdata']);
function outside(uri) {
    const label = hostWorkspace_1.HostWorkspace.labelOf(uri);
    return {
        ok: false,
        rejection: { attachment: label, reason: 'outside-workspace', message: `${label} is outside this window's workspace folders; only files inside them can be attached.` },
    };
}
function pathFor(uri) {
    if (!ATTACHABLE_SCHEMES.has(uri.scheme))
        return undefined;
    return hostWorkspace_1.HostWorkspace.pathOf(uri);
}
/** The file of a document (untitled documents included). */
function fileSpec(doc) {
    const path = pathFor(doc.uri);
    return path ? { ok: true, spec: { kind: 'file', path } } : outside(doc.uri);
}
/**
 * 1-based inclusive lines of a selection. A selection that ends at the very start of a line (the
 * usual result of selecting whole lines) does not include that line.
 */
function selectionLines(sel) {
    let endLine = sel.end.line;
    if (sel.end.character === 0 && sel.end.line > sel.start.line)
        endLine -= 1;
    return { startLine: sel.start.line + 1, endLine: endLine + 1 };
}
/** The non-empty selections of an editor, as selection specs (in document order, de-duplicated). */
function selectionSpecs(editor) {
    const path = pathFor(editor.document.uri);
    if (!path)
        return [outside(editor.document.uri)];
    const seen = new Set();
    const out = [];
    const sorted = [...editor.selections].filter((s) => !s.isEmpty).sort((a, b) => a.start.compareTo(b.start));
    for (const sel of sorted) {
        const { startLine, endLine } = selectionLines(sel);
        const key = `${startLine}-${endLine}`;
        if (seen.has(key))
            continue;
        seen.add(key);
        out.push({ ok: true, spec: { kind: 'selection', path, startLine, endLine } });
    }
    return out;
}
/** Every text document open in an editor tab (all groups), in tab order, de-duplicated. */
function openEditorDocuments() {
    const seen = new Set();
    const out = [];
    for (const group of vscode.window.tabGroups.all) {
        for (const tab of group.tabs) {
            const input = tab.input;
            const uri = input instanceof vscode.TabInputText ? input.uri : input instanceof vscode.TabInputTextDiff ? input.modified : undefined;
            if (!uri || seen.has(uri.toString()))
                continue;
            seen.add(uri.toString());
            out.push(uri);
        }
    }
    return out;
}
function uriSpec(uri) {
    const path = pathFor(uri);
    return path ? { ok: true, spec: { kind: 'file', path } } : outside(uri);
}
//# sourceMappingURL=attachFromEditor.js.map