"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WorkspaceStateStore = void 0;
/** Typed access to `ExtensionContext.workspaceState`. */
class WorkspaceStateStore {
    memento;
    constructor(memento) {
        this.memento = memento;
    }
    get(key) {
        return this.memento.get(key);
    }
    set(key, value) {
        return this.memento.update(key, value);
    }
}
exports.WorkspaceStateStore = WorkspaceStateStore;
//# sourceMappingURL=stateStorage.js.map