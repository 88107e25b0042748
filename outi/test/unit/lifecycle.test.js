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
const assert = __importStar(require("node:assert/strict"));
const lifecycle_1 = require("../../src/common/lifecycle");
function recorder(log, name) {
    return (0, lifecycle_1.toDisposable)(() => log.push(name));
}
describe('lifecycle', () => {
    it('toDisposable runs its function once', () => {
        let calls = 0;
        const d = (0, lifecycle_1.toDisposable)(() => calls++);
        d.dispose();
        d.dispose();
        assert.equal(calls, 1);
    });
    it('a store disposes in reverse order of registration, once', () => {
        const log = [];
        const store = new lifecycle_1.DisposableStore();
        store.add(recorder(log, 'a'));
        store.add(recorder(log, 'b'));
        store.dispose();
        store.dispose();
        assert.deepEqual(log, ['b', 'a']);
        assert.equal(store.isDisposed, true);
    });
    it('adding to a disposed store disposes the item at once', () => {
        const log = [];
        const store = new lifecycle_1.DisposableStore();
        store.dispose();
        store.add(recorder(log, 'late'));
        assert.deepEqual(log, ['late']);
    });
    it('clear() disposes the items but keeps the store usable', () => {
        const log = [];
        const store = new lifecycle_1.DisposableStore();
        store.add(recorder(log, 'first'));
        store.clear();
        store.add(recorder(log, 'second'));
        assert.deepEqual(log, ['first']);
        assert.equal(store.isDisposed, false);
        store.dispose();
        assert.deepEqual(log, ['first', 'second']);
    });
    it('delete() disposes and forgets one item', () => {
        const log = [];
        const store = new lifecycle_1.DisposableStore();
        const item = store.add(recorder(log, 'x'));
        store.delete(item);
        store.dispose();
        assert.deepEqual(log, ['x']);
    });
    it('disposeAll disposes every item even when one throws, then rethrows', () => {
        const log = [];
        const boom = (0, lifecycle_1.toDisposable)(() => {
            throw new Error('boom');
        });
        assert.throws(() => (0, lifecycle_1.disposeAll)([recorder(log, 'a'), boom, recorder(log, 'c')]), /boom/);
        assert.deepEqual(log, ['a', 'c']);
        const thrower = (message) => (0, lifecycle_1.toDisposable)(() => {
            throw new Error(message);
        });
        assert.throws(() => (0, lifecycle_1.disposeAll)([thrower('one'), thrower('two')]), AggregateError);
    });
    it('Disposable._register ties lifetimes to the owner', () => {
        const log = [];
        class Owner extends lifecycle_1.Disposable {
            constructor() {
                super();
                this._register(recorder(log, 'child'));
            }
        }
        const owner = new Owner();
        assert.deepEqual(log, []);
        owner.dispose();
        assert.deepEqual(log, ['child']);
    });
});
//# sourceMappingURL=lifecycle.test.js.map