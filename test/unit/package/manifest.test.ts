import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMAND_IDS, VIEW_IDS } from '../../../src/host/commands/commandIds';
import { SETTING_DEFAULTS, SETTING_KEYS } from '../../../src/host/settings/configKeys';
import { PROVIDER_SETTINGS } from '../../../src/common/providerCatalog';

/** Consistency of package.json with package.nls.json, the code and docs/design.md#manifest. */

function findRepoRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.nls.json'))) {
    const parent = path.dirname(dir);
    assert.notEqual(parent, dir, 'package.nls.json not found above the test');
    dir = parent;
  }
  return dir;
}

const root = findRepoRoot(__dirname);
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));
const pkg = readJson('package.json');
const nls: Record<string, string> = readJson('package.nls.json');
const contributes = pkg.contributes;

interface Command {
  command: string;
  title: string;
  category?: string;
}
interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
interface SettingSchema {
  type: string;
  default: unknown;
  enum?: string[];
  enumDescriptions?: string[];
  description?: string;
  markdownDescription?: string;
  minimum?: number;
  maximum?: number;
}

interface ConfigurationSection {
  id: string;
  title: string;
  order: number;
  properties: Record<string, SettingSchema>;
}
const sections: ConfigurationSection[] = contributes.configuration;
const settings: Record<string, SettingSchema> = Object.assign({}, ...sections.map((s) => s.properties));
const commands: Command[] = contributes.commands;

/** Resolves `%key%` through package.nls.json; fails when the key is missing. */
function localized(value: string): string {
  const match = /^%(.+)%$/.exec(value);
  assert.ok(match, `"${value}" is not a %key% string`);
  const key = match[1]!;
  assert.ok(key in nls, `package.nls.json has no "${key}"`);
  return nls[key]!;
}

function nlsKeysUsed(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    const match = /^%(.+)%$/.exec(value);
    if (match) {
      found.add(match[1]!);
    }
  } else if (Array.isArray(value)) {
    value.forEach((v) => nlsKeysUsed(v, found));
  } else if (value && typeof value === 'object') {
    Object.values(value).forEach((v) => nlsKeysUsed(v, found));
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return sourceFiles(full);
    }
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('manifest', () => {
  it('identifies the extension as docs/design.md#manifest says', () => {
    assert.equal(pkg.name, 'strata');
    assert.equal(pkg.publisher, 'strata-dev');
    assert.equal(pkg.main, './dist/extension.js');
    assert.equal(pkg.engines.vscode, '^1.90.0');
    assert.equal(pkg.devDependencies['@types/vscode'], '1.90.0', 'the types pinned at the floor (vsce refuses newer ones)');
    assert.equal(pkg.license, 'MIT');
    assert.ok(pkg.repository?.url, 'a repository field (vsce asks otherwise)');
    assert.ok(fs.existsSync(path.join(root, 'LICENSE')), 'LICENSE (vsce asks otherwise)');
  });

  it('orders the contributes sections from views to configuration', () => {
    const expected = ['viewsContainers', 'views', 'commands', 'menus', 'keybindings', 'configuration'];
    assert.deepEqual(
      Object.keys(contributes).filter((k) => expected.includes(k)),
      expected,
    );
  });

  it('resolves every %key% in package.json, and package.nls.json has no unused key', () => {
    const used = nlsKeysUsed(pkg);
    for (const key of used) {
      assert.ok(key in nls, `package.nls.json has no "${key}"`);
    }
    const unused = Object.keys(nls).filter((key) => !used.has(key));
    assert.deepEqual(unused, [], 'keys in package.nls.json that package.json never uses');
  });

  it('contributes the Strata container with the chat webview and the Context Layers tree', () => {
    const [container, ...others] = contributes.viewsContainers.activitybar;
    assert.equal(others.length, 0);
    assert.equal(container.id, VIEW_IDS.container);
    assert.equal(localized(container.title), 'Strata');
    assert.ok(fs.existsSync(path.join(root, container.icon)), `icon ${container.icon} exists`);
    const views = contributes.views[VIEW_IDS.container];
    assert.deepEqual(
      views.map((v: { id: string; type: string; name: string }) => [v.id, v.type, localized(v.name)]),
      [
        [VIEW_IDS.chat, 'webview', 'Chat'],
        [VIEW_IDS.layers, 'tree', 'Context Layers'],
      ],
    );
  });

  it('gives every view an icon, so it can move to the secondary side bar', () => {
    const views: { id: string; icon?: string }[] = Object.values(
      contributes.views as Record<string, { id: string; icon?: string }[]>,
    ).flat();
    assert.deepEqual(
      views.map((v) => [v.id, v.icon]),
      [
        [VIEW_IDS.chat, 'media/chat.svg'],
        [VIEW_IDS.layers, 'media/layers.svg'],
      ],
    );
    for (const v of views) assert.match(fs.readFileSync(path.join(root, v.icon!), 'utf8'), /^<svg /, `${v.icon} is an SVG`);
  });

  it('runs where the workspace is (extensionKind workspace): it reads the workspace files', () => {
    assert.deepEqual(pkg.extensionKind, ['workspace']);
  });

  it('shows the settings in titled sections in this order, each setting in exactly one', () => {
    assert.deepEqual(
      sections.map((s) => [s.id, localized(s.title), s.order]),
      [
        ['strata.model', 'Model and provider', 1],
        ['strata.context', 'Context', 2],
        ['strata.budget', 'Budget', 3],
        ['strata.cacheAndCost', 'Cache and cost', 4],
        ['strata.tools', 'Tools', 5],
      ],
    );
    const keys = sections.flatMap((s) => Object.keys(s.properties));
    assert.equal(new Set(keys).size, keys.length, 'no setting in two sections');
    const section = (key: string) => sections.find((s) => key in s.properties)!.id;
    assert.deepEqual(
      [...new Set(keys.map(section))],
      sections.map((s) => s.id),
    );
    assert.equal(section('strata.provider'), 'strata.model');
    assert.equal(section('strata.baseUrl'), 'strata.model');
    assert.equal(section('strata.instructions'), 'strata.context');
    assert.equal(section('strata.prices'), 'strata.cacheAndCost');
    for (const key of keys) {
      if (key.startsWith('strata.context.')) assert.equal(section(key), 'strata.context', key);
      if (key.startsWith('strata.budget.')) assert.equal(section(key), 'strata.budget', key);
      if (key.startsWith('strata.cache.')) assert.equal(section(key), 'strata.cacheAndCost', key);
      if (key.startsWith('strata.tools.')) assert.equal(section(key), 'strata.tools', key);
    }
  });

  it('uses no proposed API and ships LICENSE, icon and categories', () => {
    assert.equal(pkg.enabledApiProposals, undefined);
    assert.deepEqual(pkg.categories, ['AI', 'Chat']);
    assert.equal(pkg.icon, 'media/icon.png');
    assert.ok(fs.existsSync(path.join(root, pkg.icon)), 'the icon exists');
    assert.ok(fs.existsSync(path.join(root, 'LICENSE')), 'LICENSE exists');
  });

  it('activates on the chat editor tab, so a tab left open comes back after a reload', () => {
    assert.ok(pkg.activationEvents.includes(`onWebviewPanel:${VIEW_IDS.chatEditor}`), 'onWebviewPanel activation event');
  });

  it('declares exactly the commands the host registers, each titled and in category Strata', () => {
    assert.deepEqual(
      commands.map((c) => c.command),
      [...COMMAND_IDS],
    );
    for (const command of commands) {
      assert.ok(command.title.length > 0 && localized(command.title).length > 0, `${command.command} has a title`);
      assert.equal(localized(command.category ?? ''), 'Strata', `${command.command} category`);
    }
  });

  it('menus and keybindings name declared commands only', () => {
    const declared = new Set(commands.map((c) => c.command));
    const submenus = new Set((contributes.submenus as { id: string }[]).map((s) => s.id));
    const menuItems: (MenuItem & { submenu?: string })[] = Object.values(contributes.menus as Record<string, MenuItem[]>).flat();
    for (const item of [...menuItems, ...contributes.keybindings]) {
      if (item.submenu !== undefined) assert.ok(submenus.has(item.submenu), `${item.submenu} is not a declared submenu`);
      else assert.ok(declared.has(item.command), `${item.command} is not declared`);
    }
  });

  it('puts the editor and Explorer attach items in a "Strata" submenu, with Add Context… and a folder attach', () => {
    const menus = contributes.menus as Record<string, (MenuItem & { submenu?: string; when?: string })[]>;
    const submenus = contributes.submenus as { id: string; label: string }[];
    assert.deepEqual(
      submenus.map((s) => [s.id, localized(s.label)]),
      [
        ['strata.editorContext', 'Strata'],
        ['strata.explorerContext', 'Strata'],
      ],
    );
    assert.deepEqual(menus['editor/context'], [{ submenu: 'strata.editorContext', group: '9_strata@1' }]);
    assert.deepEqual(menus['explorer/context'], [{ submenu: 'strata.explorerContext', group: '9_strata@1' }]);
    assert.deepEqual(
      menus['strata.editorContext'].map((i) => i.command),
      ['strata.addSelectionToStrata', 'strata.attachSelectionWithDefinitions', 'strata.attachFileWithImports', 'strata.addContext'],
    );
    assert.deepEqual(
      menus['strata.explorerContext'].map((i) => [i.command, i.when]),
      [
        ['strata.attachFileToStrata', '!explorerResourceIsFolder'],
        ['strata.attachFileWithImports', '!explorerResourceIsFolder'],
        ['strata.attachFolderToStrata', 'explorerResourceIsFolder'],
        ['strata.addContext', undefined],
      ],
    );
    assert.equal(localized(commands.find((c) => c.command === 'strata.addContext')!.title), 'Add Context…');
    assert.equal(localized(commands.find((c) => c.command === 'strata.attachFolderToStrata')!.title), 'Attach Folder to Strata');
  });

  it('offers New Chat once in the chat view (the panel header has it; the command keeps its title)', () => {
    const titleBar = (contributes.menus['view/title'] as (MenuItem & { when: string })[]).filter((i) => i.when === 'view == strata.chat');
    assert.deepEqual(
      titleBar.map((i) => i.command),
      ['strata.selectModel', 'strata.exportChat', 'strata.importChat', 'strata.deleteChat', 'strata.openChatInEditor'],
    );
    assert.equal(localized(commands.find((c) => c.command === 'strata.newChat')!.title), 'New Chat');
  });

  it('offers Attach Selection in the editor context menu (as "Add Selection to Strata") and on Ctrl/Cmd+Alt+A', () => {
    const editorMenu: MenuItem[] = contributes.menus['strata.editorContext'];
    // The menu names whose item it is; the Command Palette keeps "Strata: Attach Selection".
    assert.ok(editorMenu.some((item) => item.command === 'strata.addSelectionToStrata'));
    assert.equal(localized(commands.find((c) => c.command === 'strata.addSelectionToStrata')!.title), 'Add Selection to Strata');
    assert.equal(localized(commands.find((c) => c.command === 'strata.attachSelection')!.title), 'Attach Selection');
    assert.deepEqual(
      contributes.keybindings
        .filter((k: { command: string }) => k.command === 'strata.attachSelection')
        .map((k: { key: string; mac: string }) => [k.key, k.mac]),
      [['ctrl+alt+a', 'cmd+alt+a']],
    );
  });

  it('declares exactly the settings the code reads, with the same defaults', () => {
    assert.deepEqual(Object.keys(settings).sort(), SETTING_KEYS.map((key) => `strata.${key}`).sort());
    for (const key of SETTING_KEYS) {
      assert.deepEqual(settings[`strata.${key}`]!.default, SETTING_DEFAULTS[key], `default of strata.${key}`);
    }
  });

  it('describes every setting and every enum value', () => {
    for (const [key, schema] of Object.entries(settings)) {
      const description = schema.markdownDescription ?? schema.description;
      assert.ok(description && localized(description).length > 0, `${key} has a description`);
      if (schema.enum) {
        assert.equal(schema.enumDescriptions?.length, schema.enum.length, `${key} describes each enum value`);
        schema.enumDescriptions!.forEach((d) => localized(d));
      }
    }
  });

  it('has the documented types, enums and defaults, the tool settings included', () => {
    const expected: Record<string, Partial<SettingSchema>> = {
      // Every provider of the catalog, in its order, after the editor's models and `auto`.
      'strata.provider': {
        type: 'string',
        enum: [...PROVIDER_SETTINGS],
        default: 'auto',
      },
      'strata.ollama.maxContextTokens': { type: 'integer', default: 32768 },
      'strata.model': { type: 'string' },
      'strata.models': { type: 'object', default: {} },
      'strata.baseUrl': { type: 'string' },
      'strata.promptCacheKey': { type: 'boolean', default: true },
      'strata.anthropicCacheTtl': { type: 'string', enum: ['5m', '1h'] },
      'strata.cache.lifetimeSeconds': { type: 'integer', default: 0 },
      'strata.cache.keepWarm': { type: 'boolean', default: false },
      'strata.prices': { type: 'object', default: {} },
      'strata.requestTimeoutSeconds': { type: 'integer', default: 120 },
      'strata.layout': { type: 'string', enum: ['library', 'transcript'], default: 'transcript' },
      'strata.context.changedFiles': {
        type: 'string',
        enum: ['append-version', 'append-diff', 'refresh-in-place'],
        default: 'append-version',
      },
      'strata.context.exclude': {
        type: 'array',
        default: [
          '**/.env',
          '**/.env.*',
          '**/*.pem',
          '**/*.key',
          '**/*.p12',
          '**/*.pfx',
          '**/id_rsa*',
          '**/id_ed25519*',
          '**/id_ecdsa*',
          '**/.ssh/**',
          '**/.aws/**',
          '**/.npmrc',
          '**/.netrc',
          '**/.git/**',
          '**/.envrc',
          '**/*.env',
          '**/.git-credentials',
          '**/.pgpass',
          '**/.pypirc',
          '**/.docker/config.json',
          '**/.kube/config',
          '**/*.tfstate',
          '**/*.jks',
          '**/*.keystore',
          '**/id_dsa*',
          '**/credentials.json',
          '**/.dockercfg',
          '**/.htpasswd',
          '**/*.tfstate.backup',
          '**/service-account*.json',
          '**/.yarnrc.yml',
          '**/.terraformrc',
        ],
      },
      'strata.context.maxFileBytes': { type: 'integer', default: 8388608 },
      'strata.context.activeEditor': { type: 'string', enum: ['suggest', 'off', 'always'], default: 'suggest' },
      'strata.context.definitionsBudget': { type: 'integer', default: 4000 },
      'strata.context.importsDepth': { type: 'integer', default: 2 },
      'strata.context.importsBudget': { type: 'integer', default: 16000 },
      'strata.budget.reservedOutputTokens': { type: 'integer' },
      'strata.budget.warnPercent': { type: 'integer', default: 70 },
      'strata.budget.compactPercent': { type: 'integer', default: 80 },
      'strata.budget.targetPercent': { type: 'integer', default: 60 },
      'strata.tools.enabled': { type: 'boolean', default: true },
      'strata.tools.maxSteps': { type: 'integer', default: 8 },
      'strata.tools.maxResultTokens': { type: 'integer', default: 6000 },
      'strata.tools.maxTurnTokens': { type: 'integer', default: 60000 },
      'strata.instructions': { type: 'string' },
      'strata.instructionsFiles': { type: 'array', default: ['.strata/instructions.md', 'AGENTS.md'] },
    };
    assert.deepEqual(Object.keys(settings).sort(), Object.keys(expected).sort());
    for (const [key, want] of Object.entries(expected)) {
      for (const [field, value] of Object.entries(want)) {
        assert.deepEqual(settings[key]![field as keyof SettingSchema], value, `${key}.${field}`);
      }
    }
  });

  it('bounds the budget percentages so that 0 < target < warn ≤ compact ≤ 100 holds by default', () => {
    for (const name of ['warnPercent', 'compactPercent', 'targetPercent']) {
      const schema = settings[`strata.budget.${name}`]!;
      assert.ok(schema.minimum !== undefined && schema.minimum > 0, `${name} minimum`);
      assert.ok(schema.maximum !== undefined && schema.maximum <= 100, `${name} maximum`);
    }
    const value = (name: string) => settings[`strata.budget.${name}`]!.default as number;
    assert.ok(0 < value('targetPercent'));
    assert.ok(value('targetPercent') < value('warnPercent'));
    assert.ok(value('warnPercent') <= value('compactPercent'));
    assert.ok(value('compactPercent') <= 100);
  });

  it('reads settings only through src/host/settings/config.ts, and only declared ones', () => {
    const known = new Set([
      ...Object.keys(settings),
      ...commands.map((c) => c.command),
      VIEW_IDS.chat,
      VIEW_IDS.layers,
      VIEW_IDS.chatEditor,
    ]);
    const configModule = path.join(root, 'src', 'host', 'settings', 'config.ts');
    for (const file of sourceFiles(path.join(root, 'src'))) {
      const text = fs.readFileSync(file, 'utf8');
      const relative = path.relative(root, file);
      if (file !== configModule) {
        assert.doesNotMatch(text, /getConfiguration\s*\(/, `${relative} reads settings directly; use readSetting()`);
      }
      // Any 'strata.x' literal (affectsConfiguration, inspect, …) must name something declared.
      for (const match of text.matchAll(/['"`](strata\.[A-Za-z][\w.]*)['"`]/g)) {
        assert.ok(known.has(match[1]!), `${relative} names ${match[1]}, which package.json does not declare`);
      }
    }
  });
});
