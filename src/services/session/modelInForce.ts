/**
 * The model a chat's requests are built for: the one the provider gave, with the user's
 * `strata.models` entry over it and any window a server showed to be smaller in this session
 * (remembered per `<provider>/<model>` until the window closes).
 */
import { applyModelOverride, modelKey, type ModelOverrides } from '../modelOverrides';
import type { ModelInfo } from '../modelInfo';

export class ModelInForce {
  private readonly learned = new Map<string, number>();

  constructor(private given: ModelInfo) {}

  /** The model as the provider gave it (before the user's entry and what was learned). */
  get base(): ModelInfo {
    return this.given;
  }

  set base(info: ModelInfo) {
    this.given = info;
  }

  /** The model in force under `overrides`. */
  resolve(overrides: ModelOverrides | undefined): ModelInfo {
    return applyModelOverride(this.given, overrides, this.learned.get(modelKey(this.given)));
  }

  /** A server took in only `window` tokens of a request to `model`: its requests are budgeted to that from now on. */
  learn(model: Pick<ModelInfo, 'provider' | 'model'>, window: number): void {
    const key = modelKey(model);
    const known = this.learned.get(key);
    if (known === undefined || window < known) this.learned.set(key, window);
  }

  /** The window learned for `model` in this session, if any. */
  learnedWindow(model: Pick<ModelInfo, 'provider' | 'model'>): number | undefined {
    return this.learned.get(modelKey(model));
  }
}
