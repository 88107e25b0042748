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
exports.readSetting = readSetting;
exports.writeSetting = writeSetting;
exports.onDidChangeSettings = onDidChangeSettings;
const vscode = __importStar(require("vscode"));
const configKeys_1 = require("./configKeys");
/**
 * The one place that reads `strata.*` settings (the manifest test fails on a
 * `getConfiguration` call anywhere else in src/), so every key read is a declared, typed key.
 */
function readSetting(key, scope) {
    return vscode.workspace.getConfiguration(configKeys_1.CONFIG_SECTION, scope).get(key, configKeys_1.SETTING_DEFAULTS[key]);
}
/** Writes a `strata.*` setting (user settings unless a target is given). */
async function writeSetting(key, value, target = vscode.ConfigurationTarget.Global) {
    await vscode.workspace.getConfiguration(configKeys_1.CONFIG_SECTION).update(key, value, target);
}
/** Fires `listener` with the changed keys whenever any `strata.*` setting changes. */
function onDidChangeSettings(listener) {
    return vscode.workspace.onDidChangeConfiguration((event) => {
        if (!event.affectsConfiguration(configKeys_1.CONFIG_SECTION)) {
            return;
        }
        const changed = Object.keys(configKeys_1.SETTING_DEFAULTS).filter((key) => event.affectsConfiguration(`${configKeys_1.CONFIG_SECTION}.${key}`));
        if (changed.length > 0) {
            listener(changed);
        }
    });
}
//# sourceMappingURL=config.js.map