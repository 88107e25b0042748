/**
 * The `auto` provider setting (docs/design.md#manifest): the editor's language models when it
 * offers one, else a local Ollama when one answers on 127.0.0.1:11434, else "not configured" (the
 * panel then previews the exact request and explains the setup). Pure logic over injected probes.
 */

export const OLLAMA_DEFAULT_ROOT = 'http://127.0.0.1:11434';

export interface EditorModelInfo {
  id: string;
  name?: string;
  vendor?: string;
  family?: string;
}

export interface OllamaInfo {
  /** OpenAI-compatible base URL (root + /v1). */
  baseURL: string;
  models: string[];
}

export interface AutoProbes {
  /** Models offered by the editor (`vscode.lm.selectChatModels()` in src/host); [] when none. */
  editorModels(): Promise<EditorModelInfo[]>;
  /** A local Ollama, or undefined when nothing answers. */
  ollama(): Promise<OllamaInfo | undefined>;
}

export type AutoResolution =
  | { kind: 'vscode-lm'; model: EditorModelInfo }
  | { kind: 'ollama'; baseURL: string; model: string; models: string[] }
  | { kind: 'not-configured'; reason: string };

/**
 * Resolves `auto`. `preferredModel` (the `strata.model` setting) wins when the chosen source offers it;
 * otherwise the first model (editor order; Ollama models sorted by name).
 */
export async function resolveAutoProvider(probes: AutoProbes, preferredModel?: string): Promise<AutoResolution> {
  let editor: EditorModelInfo[] = [];
  try {
    editor = await probes.editorModels();
  } catch {
    editor = [];
  }
  if (editor.length > 0) {
    const pick = editor.find((m) => m.id === preferredModel || m.family === preferredModel) ?? editor[0];
    return { kind: 'vscode-lm', model: pick };
  }
  let ollama: OllamaInfo | undefined;
  try {
    ollama = await probes.ollama();
  } catch {
    ollama = undefined;
  }
  if (ollama) {
    if (ollama.models.length === 0) {
      return {
        kind: 'not-configured',
        reason:
          'Ollama is running on 127.0.0.1:11434 but has no models. Pull one (for example `ollama pull llama3.2`), or choose a provider in the "strata.provider" setting.',
      };
    }
    const model = ollama.models.includes(preferredModel ?? '') ? (preferredModel as string) : ollama.models[0];
    return { kind: 'ollama', baseURL: ollama.baseURL, model, models: ollama.models };
  }
  return {
    kind: 'not-configured',
    reason:
      'No model is available: the editor offers no chat model and no Ollama answers on 127.0.0.1:11434. Set "strata.provider" to openai or anthropic (with "Strata: Set API Key"), or start Ollama.',
  };
}

export interface ProbeOllamaOptions {
  root?: string;
  /** Default 400 ms: the probe must not delay the panel. */
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/** GET /api/tags (native Ollama), falling back to GET /v1/models; undefined when nothing answers. */
export async function probeOllama(opts: ProbeOllamaOptions = {}): Promise<OllamaInfo | undefined> {
  const root = (opts.root ?? OLLAMA_DEFAULT_ROOT).replace(/\/+$/, '');
  const f = opts.fetchImpl ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 400;
  const get = async (path: string): Promise<unknown | undefined> => {
    const ctrl = new AbortController();
    const t = setTimeout(() => ctrl.abort(), timeoutMs);
    try {
      const res = await f(root + path, { signal: ctrl.signal });
      if (!res.ok) return undefined;
      return await res.json();
    } catch {
      return undefined;
    } finally {
      clearTimeout(t);
    }
  };
  const tags = (await get('/api/tags')) as { models?: { name?: unknown; model?: unknown }[] } | undefined;
  if (tags && Array.isArray(tags.models)) {
    const models = tags.models.map((m) => m.name ?? m.model).filter((n): n is string => typeof n === 'string');
    return { baseURL: `${root}/v1`, models: [...new Set(models)].sort() };
  }
  const v1 = (await get('/v1/models')) as { data?: { id?: unknown }[] } | undefined;
  if (v1 && Array.isArray(v1.data)) {
    const models = v1.data.map((m) => m.id).filter((n): n is string => typeof n === 'string');
    return { baseURL: `${root}/v1`, models: [...new Set(models)].sort() };
  }
  return undefined;
}
