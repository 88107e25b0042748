/**
 * The first run without any model: an editor without its own chat models (a fork of VS Code, or
 * one without Copilot) and no provider chosen. One notification, shown once per installation,
 * leads to the model picker (or the setup walkthrough); nothing is probed before the user chooses.
 */
import * as vscode from 'vscode';
import type { ResolvedProvider } from './providers/providerResolver';

const OFFERED_KEY = 'firstRunSetupOffered';

export interface FirstRunDeps {
  provider(): Promise<ResolvedProvider>;
}

/** Shows the offer when nothing is configured and it was never shown; returns whether it was shown. */
export async function offerFirstRunSetup(state: vscode.Memento, deps: FirstRunDeps): Promise<boolean> {
  if (state.get<boolean>(OFFERED_KEY)) return false;
  const resolved = await deps.provider().catch(() => undefined);
  if (!resolved || resolved.view.provider !== 'none') return false;
  await state.update(OFFERED_KEY, true);
  const choose = vscode.l10n.t('Choose a Model');
  const guide = vscode.l10n.t('Open the Setup Guide');
  const pick = await vscode.window.showInformationMessage(
    vscode.l10n.t('Strata has no model to send to yet: choose one with your API key, or a server on this machine.'),
    choose,
    guide,
  );
  if (pick === choose) await vscode.commands.executeCommand('strata.selectModel');
  else if (pick === guide)
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'strata-dev.strata#strata.setup', false);
  return true;
}
