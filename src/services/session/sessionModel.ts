/**
 * The model and the settings a window's chat is built with, and the changes to them: a model
 * switch (new limits at once; a new tokenizer for another encoding), a settings change, a window
 * learned from a server that cut the prompt. While a reply streams a change waits for the end of
 * the turn, so the pending turn is not dropped under it.
 */
import { validateThresholds } from '../../engine/budget';
import type { PromptContextEngine } from '../../engine/engine';
import { sameModel, type ModelInfo } from '../modelInfo';
import { learnedWindow, type ServerCut } from '../turn/serverCut';
import { engineSettings, modelLimits, resolvedSettings, type SessionSettings } from './engineSettings';
import { ModelInForce } from './modelInForce';

/** The session as a model change sees it. */
export interface ModelHost {
  settings: () => SessionSettings;
  /** A turn is streaming: a change waits for its end. */
  busy: () => boolean;
  engine: () => PromptContextEngine;
  /** A new engine on the current state, for the model's encoding. */
  renewEngine: () => void;
  /** What the meter shows changed. */
  changed: () => void;
  log: (line: string) => void;
}

export class SessionModel {
  /** The model in force (`inForce` resolved under the settings). */
  private model: ModelInfo;
  private readonly inForce: ModelInForce;
  /** A model switch or settings change that arrived while a turn was streaming. */
  private deferred: { model?: ModelInfo; settings?: boolean } = {};

  constructor(
    private readonly host: ModelHost,
    given: ModelInfo,
  ) {
    this.inForce = new ModelInForce(given);
    this.model = this.inForce.resolve(host.settings().models);
  }

  /** The model in force. */
  get current(): ModelInfo {
    return this.model;
  }

  /** See `ChatSession.setModel`. */
  set(given: ModelInfo): void {
    if (this.host.busy()) {
      this.deferred.model = given;
      return;
    }
    this.inForce.base = given;
    const info = this.inForce.resolve(this.host.settings().models);
    if (sameModel(info, this.model)) {
      this.model = info;
      return;
    }
    const encodingChanged = info.encoding !== this.model.encoding;
    this.model = info;
    if (encodingChanged) this.host.renewEngine();
    else {
      const engine = this.host.engine();
      const next = modelLimits(this.model, this.host.settings().reservedOutputTokens);
      const cur = engine.options.limits;
      // updateOptions drops the engine's render memos: only when the budget really changes.
      if (next.contextWindow !== cur.contextWindow || next.maxOutputTokens !== cur.maxOutputTokens) engine.updateOptions({ limits: next });
    }
    this.host.changed();
  }

  /** See `ChatSession.settingsChanged`. */
  settingsChanged(): string | undefined {
    const s = resolvedSettings(this.host.settings());
    const err = validateThresholds(s.thresholds);
    if (this.host.busy()) {
      // Applied when the streaming turn ends (the pending turn must not be dropped under it).
      this.deferred.settings = true;
      return err;
    }
    this.model = this.inForce.resolve(s.models);
    this.host.engine().updateOptions(engineSettings(s, this.model));
    this.host.changed();
    return err;
  }

  /**
   * A turn ended: a server that cut its prompt gets this model's next requests built for what it
   * took in; then the switch and the settings change that waited for the end, if no turn streams.
   */
  turnEnded(cut: ServerCut | undefined): void {
    if (cut) this.inForce.learn(this.inForce.base, learnedWindow(cut));
    const { model, settings } = this.deferred;
    this.deferred = {};
    if (!this.host.busy()) {
      if (model || cut) this.set(model ?? this.inForce.base);
      if (settings) {
        const err = this.settingsChanged();
        if (err) this.host.log(err);
      }
    }
  }
}
