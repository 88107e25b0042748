/**
 * Keep-warm in the editor: the setting, the open chat and the model its next message goes to, the
 * window's activity, the panel's requests as the user's activity, and what a ping changes on screen
 * (the cache's expiry in the meter and the tree, the chat's total in the list).
 */
import * as vscode from 'vscode';
import type { ChatSession } from '../../services/chatSession';
import type { PricingSettings } from '../../services/pricing/chatCost';
import { KeepWarm } from '../../services/session/keepWarm';
import { parseModelOverrides } from '../../services/modelOverrides';
import type { ChatViewProvider, PanelHandler } from '../panel/chatViewProvider';
import { readSetting } from '../settings/config';
import type { StrataController } from '../strataController';

/** The settings cost depends on, as they are now. */
export function pricingSettings(): PricingSettings {
  return {
    prices: readSetting('prices'),
    models: parseModelOverrides(readSetting('models')).overrides,
    anthropicCacheTtl: readSetting('anthropicCacheTtl'),
    cacheLifetimeSeconds: readSetting('cache.lifetimeSeconds'),
  };
}

export interface EditorKeepWarmDeps {
  session: ChatSession;
  view: ChatViewProvider;
  /** Built after the resolver that wraps providers with keep-warm, so reached lazily. */
  controller: () => StrataController | undefined;
  log: vscode.LogOutputChannel;
}

export function editorKeepWarm(d: EditorKeepWarmDeps): KeepWarm {
  return new KeepWarm({
    enabled: () => readSetting('cache.keepWarm'),
    pricing: pricingSettings,
    current: () => ({
      chatId: d.session.activeChatId,
      label: d.controller()?.currentModel()?.label,
      // The chat is open in a visible panel, and the window was interacted with recently.
      windowActive: vscode.window.state.active && d.view.visible,
    }),
    pinged: (chatId, _usage, usd) => {
      d.session.chatCosts.keptWarm(chatId, usd);
      const controller = d.controller();
      controller?.refreshMeter();
      controller?.notifyChanged();
      d.view.post({ type: 'chats', chats: d.session.chats(), chatId: d.session.activeChatId, chatTitle: d.session.title });
    },
    log: (line) => d.log.info(line),
  });
}

/** The panel's handler, with typing in the composer and every request from the panel (a send, an `@` search, an attach…) counted as the user's activity. */
export function withActivity(handler: PanelHandler, keepWarm: KeepWarm): PanelHandler {
  return {
    panelState: () => handler.panelState(),
    statePosted: (state) => handler.statePosted(state),
    handle: (request) => {
      keepWarm.activity();
      return handler.handle(request);
    },
    typing: () => keepWarm.activity(),
  };
}
