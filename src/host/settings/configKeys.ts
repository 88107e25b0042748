/**
 * Every `strata.*` setting the code reads, with its type and default. The manifest test checks this
 * list against package.json both ways (same keys, same defaults), and all reads go through
 * `config.ts`, so a setting cannot be read without being declared. No vscode import: unit tests
 * load this file in plain Node.
 */
import { DEFAULT_EXCLUDES, DEFAULT_MAX_FILE_BYTES } from '../../engine/isolation';
import type { ChangedFilesPolicy } from '../../engine/types';
import type { ModelPrices } from '../../services/pricing/prices';
import type { ModelOverride } from '../../services/modelOverrides';
import type { ProviderSetting } from '../../common/providerCatalog';

export const CONFIG_SECTION = 'strata';

export type { ProviderSetting } from '../../common/providerCatalog';
export type LayoutSetting = 'library' | 'transcript';
export type ActiveEditorSetting = 'suggest' | 'off' | 'always';

export interface StrataSettings {
  provider: ProviderSetting;
  model: string;
  /** `<provider>/<model>` or `<model>` → the user's window, maximum output and prices for it. */
  models: Readonly<Record<string, ModelOverride>>;
  baseUrl: string;
  promptCacheKey: boolean;
  /** The largest window Strata asks Ollama to run a model with (`num_ctx`): memory grows with it. */
  'ollama.maxContextTokens': number;
  anthropicCacheTtl: '5m' | '1h';
  /** Seconds a provider is assumed to keep a chat's prompt cache; 0 means: its documented lifetime. */
  'cache.lifetimeSeconds': number;
  /** Anthropic: a tiny request re-reads the open chat's cached prefix before it expires, while the user is active. */
  'cache.keepWarm': boolean;
  /** Model id → prices per million tokens, over the built-in table. */
  prices: Readonly<Record<string, Partial<ModelPrices>>>;
  requestTimeoutSeconds: number;
  layout: LayoutSetting;
  'context.changedFiles': ChangedFilesPolicy;
  'context.exclude': readonly string[];
  'context.maxFileBytes': number;
  /** The active file or selection: offered as a suggestion chip, not offered, or attached before each send. */
  'context.activeEditor': ActiveEditorSetting;
  /** Tokens the definitions attached with a selection may take. */
  'context.definitionsBudget': number;
  /** Import levels "Attach File with Imports" follows below the file. */
  'context.importsDepth': number;
  /** Tokens the files attached with their imports may take. */
  'context.importsBudget': number;
  /** 0 means: reserve the model's maximum output tokens. */
  'budget.reservedOutputTokens': number;
  'budget.warnPercent': number;
  'budget.compactPercent': number;
  'budget.targetPercent': number;
  /** Workspace tools offered to models that support tool calling. */
  'tools.enabled': boolean;
  /** Tool rounds per turn at most. */
  'tools.maxSteps': number;
  /** Tokens of one tool result at most (longer results are cut at a line). */
  'tools.maxResultTokens': number;
  /** Tokens all tool results of one turn may add, together. */
  'tools.maxTurnTokens': number;
  instructions: string;
  /** Not read in Restricted Mode (see `capabilities.untrustedWorkspaces` in package.json and settingsPolicy.ts). */
  instructionsFiles: readonly string[];
}

export type SettingKey = keyof StrataSettings;

export const SETTING_DEFAULTS: Readonly<StrataSettings> = {
  provider: 'auto',
  model: '',
  models: {},
  baseUrl: '',
  promptCacheKey: true,
  'ollama.maxContextTokens': 32768,
  anthropicCacheTtl: '5m',
  'cache.lifetimeSeconds': 0,
  'cache.keepWarm': false,
  prices: {},
  requestTimeoutSeconds: 120,
  layout: 'transcript',
  'context.changedFiles': 'append-version',
  'context.exclude': DEFAULT_EXCLUDES,
  'context.maxFileBytes': DEFAULT_MAX_FILE_BYTES,
  'context.activeEditor': 'suggest',
  'context.definitionsBudget': 4000,
  'context.importsDepth': 2,
  'context.importsBudget': 16000,
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

export const SETTING_KEYS = Object.keys(SETTING_DEFAULTS) as SettingKey[];
