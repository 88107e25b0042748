"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.isToolWorkspacePort = isToolWorkspacePort;
function isToolWorkspacePort(port) {
    const p = port;
    return typeof p.listFiles === 'function' && typeof p.diagnostics === 'function' && typeof p.selection === 'function';
}
//# sourceMappingURL=toolPort.js.map