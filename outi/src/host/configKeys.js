"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.SETTING_KEYS = exports.SETTING_DEFAULTS = exports.CONFIG_SECTION = void 0;
/**
 * Every `strata.*` setting the code reads, with its type and default. The manifest test checks this
 * list against package.json both ways (same keys, same defaults), and all reads go through
 * `config.ts`, so a setting cannot be read without being declared. No vscode import: unit tests
 * load this file in plain Node.
 */
const isolation_1 = require("../engine/isolation");
exports.CONFIG_SECTION = 'strata';
exports.SETTING_DEFAULTS = {
    provider: 'auto',
    model: '',
    baseUrl: '',
    promptCacheKey: true,
    anthropicCacheTtl: '5m',
    requestTimeoutSeconds: 120,
    layout: 'transcript',
    'context.changedFiles': 'append-version',
    'context.exclude': isolation_1.DEFAULT_EXCLUDES,
    'context.maxFileBytes': isolation_1.DEFAULT_MAX_FILE_BYTES,
    'budget.reservedOutputTokens': 0,
    'budget.warnPercent': 70,
    'budget.compactPercent': 80,
    'budget.targetPercent': 60,
    'tools.enabled': true,
    'tools.maxSteps': 8,
    'tools.maxResultTokens': 6000,
    'tools.maxTurnTokens': 60000,
    instructions: '',
    instructionsFiles: ['.strata/instructions.md', 'AGENTS.md'],
};
exports.SETTING_KEYS = Object.keys(exports.SETTING_DEFAULTS);
//# sourceMappingURL=configKeys.js.map