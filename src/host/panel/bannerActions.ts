/**
 * What a banner's button does. A secondary action (Open Settings, Edit Base URL, Raise Limit, Show
 * Log) keeps its banner, so the user can come back to the message it answers; the others clear it.
 */
import * as vscode from 'vscode';
import type { BannerAction } from '../../protocol/messages';
import type { RefusalActions } from '../context/refusalActions';
import { BASE_URL_SETTING } from '../providers/providerAdvice';
import { actionKeepsBanner, settingsQuery } from '../settings/bannerSettings';
import type { PanelBanners } from './panelBanners';

export interface BannerActionDeps {
  banners: PanelBanners;
  clear(bannerId: string): void;
  log: vscode.LogOutputChannel;
  /** Sends the last message again (Retry). */
  retry(): Promise<void>;
  refusals: Pick<RefusalActions, 'perform'>;
}

export async function runBannerAction(deps: BannerActionDeps, bannerId: string, action: BannerAction): Promise<void> {
  const banner = deps.banners.find(bannerId);
  if (!actionKeepsBanner(action)) deps.clear(bannerId);
  switch (action) {
    case 'setApiKey':
      await vscode.commands.executeCommand('strata.setApiKey');
      return;
    case 'openSettings':
      await vscode.commands.executeCommand('workbench.action.openSettings', settingsQuery(banner?.setting));
      return;
    case 'selectModel':
      await vscode.commands.executeCommand('strata.selectModel');
      return;
    case 'showLog':
      deps.log.show(true);
      return;
    case 'retry':
      await deps.retry();
      return;
    case 'undo':
      await vscode.commands.executeCommand('strata.undoPending', { bannerId });
      return;
    case 'editBaseUrl':
      await vscode.commands.executeCommand('workbench.action.openSettings', BASE_URL_SETTING);
      return;
    case 'attachOutline':
    case 'attachHead':
    case 'raiseLimit':
      await deps.refusals.perform(action, banner?.path);
      return;
    case 'dismiss':
      return;
  }
}
