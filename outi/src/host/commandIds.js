"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.VIEW_IDS = exports.COMMAND_IDS = void 0;
/**
 * Every command Strata contributes. Activation registers each of them, and the manifest test checks this list equals `contributes.commands`.
 * No vscode import: unit tests load this file in plain Node.
 */
exports.COMMAND_IDS = [
    'strata.newChat',
    'strata.attachActiveFile',
    'strata.attachSelection',
    'strata.attachOpenEditors',
    'strata.pin',
    'strata.unpin',
    'strata.removeAttachment',
    'strata.compactNow',
    'strata.showLastRequest',
    'strata.selectModel',
    'strata.setApiKey',
    'strata.exportChat',
    'strata.importChat',
    'strata.deleteChat',
    // Context Layers tree item actions (issue 10), beyond DESIGN §11's list.
    'strata.openSource',
    'strata.showContent',
];
exports.VIEW_IDS = {
    container: 'strata',
    chat: 'strata.chat',
    layers: 'strata.layers',
};
//# sourceMappingURL=commandIds.js.map