/**
 * Imitations of the local and compatible servers (real HTTP on 127.0.0.1 only), each with the
 * behaviour around its window that Strata has to respect:
 *
 * - Ollama: the native API (`POST /api/chat` streaming NDJSON, `/api/tags`, `/api/show`, `/api/ps`)
 *   and its OpenAI-compatible `/v1`. A prompt longer than `num_ctx` is cut from the front without an
 *   error, and `prompt_eval_count` / `prompt_tokens` report the cut prompt. Without `num_ctx` in the
 *   request (always on `/v1`) the server's default applies: 4,096, or what it was configured with
 *   (`OLLAMA_CONTEXT_LENGTH`, e.g. 8,192).
 * - vLLM: `/v1/models` with `max_model_len`; a request whose prompt plus `max_tokens` exceeds it gets
 *   vLLM's 400.
 * - llama.cpp server: `/props` with `default_generation_settings.n_ctx`; a longer prompt gets its 400.
 * - LM Studio: `/api/v0/models` with loaded and maximum context; a prompt longer than the loaded
 *   context gets an error.
 *
 * Usage is counted with the extension's tokenizer, as in imitationServers.ts, so tests compare exact figures.
 */
import type * as http from 'http';
import type { ChatMessage } from '../../src/engine/types';
import { requestTokens } from '../../src/services/cacheModel';
import { OpenAIImitationServer, type ImitationOptions, type RecordedRequest } from './imitationServers';

const LOOPBACK = '127.0.0.1';

function loopbackOnly(opts: ImitationOptions): ImitationOptions {
  if (opts.host !== undefined && opts.host !== LOOPBACK) throw new Error('The imitation servers listen on 127.0.0.1 only.');
  return { ...opts, host: LOOPBACK };
}

export interface OllamaModelSpec {
  name: string;
  /** The model's own window (`/api/show` `<arch>.context_length`). */
  contextLength: number;
  /** Default `llama`. */
  arch?: string;
}

export interface OllamaImitationOptions extends ImitationOptions {
  ollamaModels?: OllamaModelSpec[];
  /** The window when a request sets no `num_ctx` (Ollama's default 4,096; `OLLAMA_CONTEXT_LENGTH` changes it). */
  defaultNumCtx?: number;
}

/** Ollama: native chat with `num_ctx`, model details, loaded models, and the silent front cut. */
export class OllamaImitationServer extends OpenAIImitationServer {
  readonly specs: OllamaModelSpec[];
  readonly defaultNumCtx: number;
  /** Loaded models and the window each one runs with (what `/api/ps` shows). */
  readonly loaded = new Map<string, number>();

  constructor(opts: OllamaImitationOptions = {}) {
    const specs = opts.ollamaModels ?? [{ name: 'llama3.2:latest', contextLength: 131072 }];
    super({ ...loopbackOnly(opts), models: specs.map((m) => m.name) });
    this.specs = specs;
    this.defaultNumCtx = opts.defaultNumCtx ?? 4096;
  }

  /** The server's root (the native API); `/v1` is its OpenAI-compatible API. */
  get root(): string {
    return this.origin;
  }

  protected override admit(_body: Record<string, unknown>, promptTokens: number): { kept: number } {
    // `/v1` takes no num_ctx: the server's default window applies, and it cuts silently.
    return { kept: Math.min(promptTokens, this.defaultNumCtx) };
  }

  protected override async route(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (path.startsWith('/v1/')) return super.route(req, res, rec);
    if (req.method === 'GET' && path === '/api/tags') {
      return this.json(res, 200, {
        models: this.specs.map((m) => ({
          name: m.name,
          model: m.name,
          modified_at: '2026-01-01T00:00:00Z',
          size: 2019393189,
          digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
          details: { format: 'gguf', family: m.arch ?? 'llama', parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
        })),
      });
    }
    if (req.method === 'GET' && path === '/api/ps') {
      return this.json(res, 200, {
        models: [...this.loaded].map(([name, ctx]) => ({ name, model: name, size: 3e9, size_vram: 3e9, context_length: ctx })),
      });
    }
    if (req.method === 'POST' && path === '/api/show') {
      const name = (rec.body as { model?: unknown; name?: unknown } | undefined)?.model ?? (rec.body as { name?: unknown })?.name;
      const spec = this.specs.find((m) => m.name === name);
      if (!spec) return this.json(res, 404, { error: `model '${String(name)}' not found` });
      const arch = spec.arch ?? 'llama';
      return this.json(res, 200, {
        modelfile: `FROM ${spec.name}`,
        parameters: 'stop "<|eot_id|>"',
        details: { format: 'gguf', family: arch },
        model_info: { 'general.architecture': arch, 'general.parameter_count': 3212749888, [`${arch}.context_length`]: spec.contextLength },
      });
    }
    if (req.method === 'POST' && path === '/api/chat') return this.chat(req, res, rec);
    return this.json(res, 404, { error: `${req.method} ${path} not found` });
  }

  private async chat(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const body = rec.body as
      | { model?: unknown; messages?: unknown; stream?: unknown; options?: { num_ctx?: unknown; num_predict?: unknown }; tools?: unknown }
      | undefined;
    if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages))
      return this.json(res, 400, { error: 'model is required' });
    const model = body.model;
    if (!this.specs.some((m) => m.name === model))
      return this.json(res, 404, { error: `model "${model}" not found, try pulling it first` });
    const messages: ChatMessage[] = (body.messages as { role?: unknown; content?: unknown; tool_calls?: unknown }[]).map((m) => ({
      role: m.role === 'assistant' || m.role === 'system' || m.role === 'tool' ? m.role : 'user',
      content: [{ type: 'text', text: typeof m.content === 'string' ? m.content : '' }],
    })) as ChatMessage[];
    rec.messages = messages;
    const tools = Array.isArray(body.tools)
      ? (body.tools as { function?: { name?: unknown } }[]).map((t) => String(t.function?.name ?? ''))
      : undefined;
    if (tools) rec.tools = tools;
    const numCtx = typeof body.options?.num_ctx === 'number' ? body.options.num_ctx : this.defaultNumCtx;
    rec.numCtx = numCtx;
    this.loaded.set(model, numCtx);
    const sent = requestTokens(messages, this.tokenizer).tokens.length;
    const kept = Math.min(sent, numCtx);
    if (kept < sent) rec.cut = { sent, kept };
    const scripted = this.scripted(
      this.nextReply(req, { model, messages, tools: tools ?? [], promptTokens: kept, cachedTokens: 0 }),
      'call_',
    );
    rec.reply = scripted.text;
    if (scripted.toolCalls.length > 0) rec.toolCalls = scripted.toolCalls;
    const output = this.countText(scripted.text + (scripted.toolCalls.length > 0 ? JSON.stringify(scripted.toolCalls) : ''));
    rec.usage = { input: kept, cacheRead: 0, cacheWrite: 0, output };
    const at = '2026-01-01T00:00:00Z';
    const line = (o: unknown) => `${JSON.stringify(o)}\n`;
    const pieces = Array.from(scripted.text)
      .reduce<string[]>((out, ch, i) => {
        if (i % (this.opts.deltaChars ?? 6) === 0) out.push('');
        out[out.length - 1] += ch;
        return out;
      }, [])
      .map((text) => line({ model, created_at: at, message: { role: 'assistant', content: text }, done: false }));
    if (scripted.toolCalls.length > 0)
      pieces.push(
        line({
          model,
          created_at: at,
          message: {
            role: 'assistant',
            content: '',
            tool_calls: scripted.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args } })),
          },
          done: false,
        }),
      );
    pieces.push(
      line({
        model,
        created_at: at,
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        total_duration: 1_000_000,
        load_duration: 1_000,
        prompt_eval_count: kept,
        prompt_eval_duration: 1_000,
        eval_count: output,
        eval_duration: 1_000,
      }),
    );
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-strata-imitation': '1' });
    if (await this.writeAll(res, pieces)) res.end();
  }
}

export interface VllmModelSpec {
  id: string;
  maxModelLen: number;
}

/** vLLM: `max_model_len` per model; prompt + `max_tokens` over it is a 400. */
export class VllmImitationServer extends OpenAIImitationServer {
  constructor(
    readonly specs: VllmModelSpec[] = [{ id: 'Qwen/Qwen2.5-Coder-7B-Instruct', maxModelLen: 8192 }],
    opts: ImitationOptions = {},
  ) {
    super({ ...loopbackOnly(opts), models: specs.map((m) => m.id) });
  }

  protected override listModels(): unknown {
    return {
      object: 'list',
      data: this.specs.map((m) => ({
        id: m.id,
        object: 'model',
        created: 0,
        owned_by: 'vllm',
        root: m.id,
        parent: null,
        max_model_len: m.maxModelLen,
      })),
    };
  }

  protected override admit(body: Record<string, unknown>, promptTokens: number): { kept: number } | { status: number; body: unknown } {
    const spec = this.specs.find((m) => m.id === body.model);
    if (!spec) return { kept: promptTokens };
    const max =
      typeof body.max_tokens === 'number'
        ? body.max_tokens
        : typeof body.max_completion_tokens === 'number'
          ? body.max_completion_tokens
          : 0;
    if (promptTokens + max <= spec.maxModelLen) return { kept: promptTokens };
    return {
      status: 400,
      // The OpenAI-style error object vLLM's server answers with.
      body: {
        error: {
          message: `This model's maximum context length is ${spec.maxModelLen} tokens. However, you requested ${promptTokens + max} tokens (${promptTokens} in the messages, ${max} in the completion). Please reduce the length of the messages or completion.`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      },
    };
  }
}

/** llama.cpp's server: one model, `n_ctx` per slot in `/props`; a longer prompt is a 400. */
export class LlamaCppImitationServer extends OpenAIImitationServer {
  constructor(
    readonly model = 'qwen2.5-coder-7b-instruct-q4_k_m.gguf',
    readonly nCtx = 4096,
    opts: ImitationOptions = {},
  ) {
    super({ ...loopbackOnly(opts), models: [model] });
  }

  protected override async route(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/props') {
      return this.json(res, 200, {
        default_generation_settings: { n_ctx: this.nCtx, n_predict: -1, temperature: 0.8 },
        total_slots: 1,
        model_path: `/models/${this.model}`,
      });
    }
    return super.route(req, res, rec);
  }

  protected override listModels(): unknown {
    return {
      object: 'list',
      data: [{ id: this.model, object: 'model', created: 0, owned_by: 'llamacpp', meta: { n_ctx_train: 32768, n_vocab: 151936 } }],
    };
  }

  protected override admit(_body: Record<string, unknown>, promptTokens: number): { kept: number } | { status: number; body: unknown } {
    if (promptTokens <= this.nCtx) return { kept: promptTokens };
    return {
      status: 400,
      body: {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: promptTokens,
          n_ctx: this.nCtx,
        },
      },
    };
  }
}

export interface LmStudioModelSpec {
  id: string;
  maxContextLength: number;
  /** Set when the model is loaded: the context it was loaded with. */
  loadedContextLength?: number;
}

/** LM Studio: `/api/v0/models` with each model's state and contexts; a prompt over the loaded context is refused. */
export class LmStudioImitationServer extends OpenAIImitationServer {
  constructor(
    readonly specs: LmStudioModelSpec[] = [{ id: 'qwen2.5-7b-instruct', maxContextLength: 32768, loadedContextLength: 8192 }],
    opts: ImitationOptions = {},
  ) {
    super({ ...loopbackOnly(opts), models: specs.map((m) => m.id) });
  }

  protected override async route(req: http.IncomingMessage, res: http.ServerResponse, rec: RecordedRequest): Promise<void> {
    const path = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/api/v0/models') {
      return this.json(res, 200, {
        object: 'list',
        data: this.specs.map((m) => ({
          id: m.id,
          object: 'model',
          type: 'llm',
          publisher: 'lmstudio-community',
          arch: 'qwen2',
          compatibility_type: 'gguf',
          quantization: 'Q4_K_M',
          state: m.loadedContextLength ? 'loaded' : 'not-loaded',
          max_context_length: m.maxContextLength,
          ...(m.loadedContextLength ? { loaded_context_length: m.loadedContextLength } : {}),
        })),
      });
    }
    return super.route(req, res, rec);
  }

  protected override admit(body: Record<string, unknown>, promptTokens: number): { kept: number } | { status: number; body: unknown } {
    const spec = this.specs.find((m) => m.id === body.model);
    const ctx = spec?.loadedContextLength ?? 4096;
    if (promptTokens <= ctx) return { kept: promptTokens };
    return {
      status: 400,
      body: {
        error: `Trying to keep the first ${promptTokens} tokens when context the overflows. However, the model is loaded with context length of only ${ctx} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
      },
    };
  }
}

export async function startOllamaImitation(opts: OllamaImitationOptions = {}): Promise<OllamaImitationServer> {
  return new OllamaImitationServer(opts).listen();
}

export async function startVllmImitation(specs?: VllmModelSpec[], opts: ImitationOptions = {}): Promise<VllmImitationServer> {
  return new VllmImitationServer(specs, opts).listen();
}

export async function startLlamaCppImitation(model?: string, nCtx?: number, opts: ImitationOptions = {}): Promise<LlamaCppImitationServer> {
  return new LlamaCppImitationServer(model, nCtx, opts).listen();
}

export async function startLmStudioImitation(specs?: LmStudioModelSpec[], opts: ImitationOptions = {}): Promise<LmStudioImitationServer> {
  return new LmStudioImitationServer(specs, opts).listen();
}
