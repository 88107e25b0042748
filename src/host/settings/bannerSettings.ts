/**
 * Where a banner's Open Settings goes: to exactly the setting its message names (the Settings editor
 * filtered to that id), or to all of Strata's settings when it names none. No vscode import: unit
 * tests check it in plain Node.
 */
import type { BannerAction } from '../../protocol/messages';
import { SETTING_KEYS } from './configKeys';

const KNOWN = new Set<string>(SETTING_KEYS.map((k) => `strata.${k}`));
/** `strata.` and dotted words: a linear scan, whatever the message holds. */
const SETTING_ID = /\bstrata(?:\.[A-Za-z][A-Za-z0-9]*)+/g;

/** The first declared Strata setting a message names, e.g. "strata.budget.targetPercent". */
export function settingNamedIn(message: string): string | undefined {
  for (const m of message.matchAll(SETTING_ID)) {
    if (KNOWN.has(m[0])) return m[0];
  }
  return undefined;
}

/** The search `workbench.action.openSettings` gets for a banner's Open Settings. */
export function settingsQuery(setting: string | undefined): string {
  return setting ?? '@ext:strata-dev.strata';
}

/**
 * Open Settings, Edit Base URL, Raise Limit… and Show Log only show something: the banner stays,
 * with the action that fixes the problem. Every other action (the resolution, or Dismiss) settles it.
 */
export function actionKeepsBanner(action: BannerAction): boolean {
  return action === 'openSettings' || action === 'editBaseUrl' || action === 'raiseLimit' || action === 'showLog';
}
