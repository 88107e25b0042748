"use strict";
/**
 * The engine's data contract (DESIGN.md §1–§5). Pure types: no vscode, no Node built-ins.
 */
Object.defineProperty(exports, "__esModule", { value: true });
exports.LAYER_IDS = void 0;
exports.LAYER_IDS = ['L1', 'L2', 'L3', 'L4', 'L5'];
//# sourceMappingURL=types.js.map