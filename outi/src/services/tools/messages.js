"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.toolCallsJson = toolCallsJson;
const render_1 = require("../../engine/render");
/** The JSON of an assistant message's calls as the token rule counts it (`[]` is never written). */
function toolCallsJson(calls) {
    return calls && calls.length > 0 ? (0, render_1.toolCallsJson)(calls) : '';
}
//# sourceMappingURL=messages.js.map