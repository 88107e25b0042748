/**
 * What a local or compatible server says about its models: the ids it serves and the window each
 * one will actually use for a request (docs/design.md#budget). Each server says it differently:
 *
 * - Ollama: `GET /api/tags` (the models), `POST /api/show` (`model_info["<arch>.context_length"]`,
 *   the model's own window), `GET /api/ps` (the `context_length` a loaded model runs with). Strata
 *   sends `num_ctx` itself (see ollama.ts), so the window is the model's, within the user's cap.
 * - vLLM: `GET /v1/models` (`max_model_len` per model; the output counts inside it).
 * - llama.cpp server: `GET /v1/models` and `GET /props` (`default_generation_settings.n_ctx`, the
 *   window of one slot).
 * - LM Studio: `GET /api/v0/models` (`loaded_context_length` of a loaded model, `max_context_length`).
 *
 * Nothing here runs unless the user chose the server or asked Strata to look for one.
 */
import { isObj } from '../../common/guards';
import type { ModelFacts } from '../modelInfo';

/** A model a server offers, with what it says about the model's limits. */
export interface ServerModel {
  id: string;
  facts: ModelFacts;
  /** What the picker shows beside the id ("8,192-token window, loaded"). */
  detail: string;
}

export interface ServerQuery {
  /** The server's root (`http://127.0.0.1:11434`); a trailing `/v1` is ignored. */
  root: string;
  /** `root` is an OpenAI-style base URL used as it is (`https://api.openai.com/v1`): its list is `root/models`. */
  asBaseUrl?: boolean;
  apiKey?: string;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
}

/** Ollama's window when nothing sets `num_ctx` (its documented default). */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;
/** LM Studio loads a model on first use with its default context length; Strata assumes this much until it is loaded. */
export const LMSTUDIO_UNLOADED_CONTEXT = 4096;
/** The most models whose details Strata asks an Ollama server for at once. */
const MAX_SHOWN_MODELS = 64;

/** The server's root: no trailing slashes, no `/v1`. */
export function serverRoot(url: string): string {
  return url.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

async function getJson(q: ServerQuery, path: string, body?: unknown): Promise<unknown> {
  const f = q.fetchImpl ?? fetch;
  const headers: Record<string, string> = {};
  if (q.apiKey) headers.authorization = `Bearer ${q.apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const url = q.asBaseUrl ? q.root.trim().replace(/\/+$/, '') + path.replace(/^\/v1/, '') : serverRoot(q.root) + path;
  const res = await f(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: q.signal,
  });
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status} from ${path}`), { status: res.status, headers: res.headers });
  return (await res.json()) as unknown;
}

function posInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

function listOf(v: unknown, key: string): Record<string, unknown>[] {
  const arr = isObj(v) ? v[key] : undefined;
  return Array.isArray(arr) ? arr.filter(isObj) : [];
}

/** The model's own window from `/api/show`: `model_info["<general.architecture>.context_length"]`. */
export function ollamaContextLength(show: unknown): number | undefined {
  if (!isObj(show) || !isObj(show.model_info)) return undefined;
  const info = show.model_info;
  const arch = info['general.architecture'];
  if (typeof arch === 'string') {
    const own = posInt(info[`${arch}.context_length`]);
    if (own) return own;
  }
  for (const [k, v] of Object.entries(info)) if (k.endsWith('.context_length') && posInt(v)) return v as number;
  return undefined;
}

/**
 * Ollama's models. `numCtxCap` bounds the window Strata asks for (the memory a bigger one takes is
 * the user's call): each model's window is its own context length, within the cap.
 */
export async function ollamaModels(q: ServerQuery, numCtxCap: number): Promise<ServerModel[]> {
  const tags = await getJson(q, '/api/tags');
  const names = [
    ...new Set(listOf(tags, 'models').map((m) => (typeof m.name === 'string' ? m.name : typeof m.model === 'string' ? m.model : ''))),
  ]
    .filter((n) => n !== '')
    .sort();
  const ps = await getJson(q, '/api/ps').catch(() => undefined);
  const loaded = new Map<string, number | undefined>();
  for (const m of listOf(ps, 'models')) if (typeof m.name === 'string') loaded.set(m.name, posInt(m.context_length));
  return Promise.all(
    names.map(async (id, i) => {
      const own =
        i < MAX_SHOWN_MODELS ? ollamaContextLength(await getJson(q, '/api/show', { model: id }).catch(() => undefined)) : undefined;
      const window = Math.min(own ?? OLLAMA_DEFAULT_NUM_CTX, numCtxCap);
      const running = loaded.get(id);
      const facts: ModelFacts = { contextWindow: window, source: 'server' };
      const parts = [`${fmt(window)}-token window`];
      if (own !== undefined && own > window) parts.push(`model allows ${fmt(own)}`);
      if (loaded.has(id)) parts.push(running ? `loaded with ${fmt(running)}` : 'loaded');
      return { id, facts, detail: parts.join(', ') };
    }),
  );
}

/** vLLM's models with `max_model_len`, which the requested output counts inside. */
export async function vllmModels(q: ServerQuery): Promise<ServerModel[]> {
  return openAiCompatibleModels(q);
}

/**
 * An OpenAI-compatible `GET /v1/models`: ids, and the window when the entry carries one (vLLM's
 * `max_model_len`, llama.cpp's `meta.n_ctx_train` is the trained length, not the served one, and is ignored).
 */
export async function openAiCompatibleModels(q: ServerQuery): Promise<ServerModel[]> {
  const body = await getJson(q, '/v1/models');
  return listOf(body, 'data')
    .filter((m) => typeof m.id === 'string')
    .map((m) => {
      const len = posInt(m.max_model_len);
      return len
        ? { id: m.id as string, facts: { contextWindow: len, source: 'server' as const }, detail: `${fmt(len)}-token window` }
        : { id: m.id as string, facts: {}, detail: '' };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The llama.cpp server's window: `/props` `default_generation_settings.n_ctx` (one slot's). */
export async function llamaCppModels(q: ServerQuery): Promise<ServerModel[]> {
  const props = await getJson(q, '/props');
  const settings = isObj(props) && isObj(props.default_generation_settings) ? props.default_generation_settings : {};
  const nCtx = posInt(settings.n_ctx) ?? (isObj(props) ? posInt(props.n_ctx) : undefined);
  const listed = await openAiCompatibleModels(q).catch(() => [] as ServerModel[]);
  const ids = listed.length > 0 ? listed.map((m) => m.id) : isObj(props) && typeof props.model_path === 'string' ? [props.model_path] : [];
  return ids.map((id) =>
    nCtx
      ? { id, facts: { contextWindow: nCtx, source: 'server' as const }, detail: `${fmt(nCtx)}-token window` }
      : { id, facts: {}, detail: '' },
  );
}

/** LM Studio's language models: a loaded model's context length, else what it loads with by default. */
export async function lmStudioModels(q: ServerQuery): Promise<ServerModel[]> {
  const body = await getJson(q, '/api/v0/models');
  return listOf(body, 'data')
    .filter((m) => typeof m.id === 'string' && (m.type === undefined || m.type === 'llm' || m.type === 'vlm'))
    .map((m) => {
      const max = posInt(m.max_context_length);
      const loaded = m.state === 'loaded' ? posInt(m.loaded_context_length) : undefined;
      const window = loaded ?? Math.min(max ?? LMSTUDIO_UNLOADED_CONTEXT, LMSTUDIO_UNLOADED_CONTEXT);
      const detail = loaded
        ? `${fmt(loaded)}-token window, loaded`
        : `not loaded: ${fmt(window)} assumed${max ? ` (model allows ${fmt(max)})` : ''}`;
      return { id: m.id as string, facts: { contextWindow: window, source: 'server' as const }, detail };
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
