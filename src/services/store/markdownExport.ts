/**
 * A chat as Markdown, as the user saw it: messages, the attachments of each turn, selection snapshots
 * verbatim, and a hidden `<!-- strata-chat: base64 JSON -->` comment holding the state and its
 * snapshots so `parseChatExport` can restore it. Secrets (API keys, key-like environment values) are
 * replaced by [REDACTED] everywhere (tool steps too); an export that would still contain one is refused.
 */
import type { ChatState, EntryState, ToolStepRecord } from '../../engine/state';
import { encodeState, referencedBlobs, stateBlobs, withoutEntries, type EngineMeta } from '../../engine/stateCodec';
import { sha256Hex } from '../../common/hash';
import { EXPORT_FORMAT, FORMAT_VERSION } from './chatFormat';
import { ChatStoreError, type ChatStoreOptions, type LoadedChat, type TurnMeta } from './chatTypes';

const REDACTED = '[REDACTED]';
const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY)/i;

/** The secrets an export must not contain: the options' keys and key-like environment values, longest first. */
export function secretsOf(options: ChatStoreOptions): string[] {
  const out = new Set<string>();
  for (const s of options.secrets ?? []) if (typeof s === 'string' && s.length >= 8) out.add(s);
  if (options.scrubEnvSecrets ?? true) {
    for (const [name, value] of Object.entries(process.env)) {
      if (value && SECRET_ENV_NAME.test(name) && value.length >= 12 && !/\s/.test(value)) out.add(value);
    }
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** What holds workspace content in an export: attached files and selections, and what tools read. */
const ATTACHED_KINDS: ReadonlySet<string> = new Set(['file', 'selection', 'tool', 'diagnostics', 'folder']);

/** The attached items (by artifact id) whose content an export embeds. */
export function embeddedAttachments(state: ChatState): string[] {
  const ids = new Set<string>();
  for (const e of state.entries.values()) if (ATTACHED_KINDS.has(e.artifact.kind)) ids.add(e.artifact.id);
  return [...ids];
}

export interface ExportOptions {
  /**
   * Leave the attached files' content out: the Markdown still lists what each turn attached, and an
   * import continues the chat without them (as for paths a workspace does not allow).
   */
  withoutAttachments?: boolean;
}

/** The Markdown of a loaded chat with every one of `secrets` replaced; a `secret` error if one would remain. */
export function chatToMarkdown(loaded: LoadedChat, secrets: readonly string[], options: ExportOptions = {}): string {
  const { state, redacted } = scrubState(loaded.state, secrets);
  const title = scrub(loaded.title, secrets);
  let enc = encodeState(state, { engine: loaded.engine });
  const blobs: Record<string, string> = {};
  for (const b of stateBlobs(state)) blobs[b.hash] = b.text;
  // What was applied to this workspace's files is no part of the conversation: an export leaves it out.
  let turns = JSON.parse(scrub(JSON.stringify(loaded.turns.map(({ applied: _applied, ...t }) => t)), secrets)) as TurnMeta[];
  let omitted: number | undefined;
  if (options.withoutAttachments) {
    const drop = new Set([...state.entries].filter(([, e]) => ATTACHED_KINDS.has(e.artifact.kind)).map(([k]) => k));
    omitted = embeddedAttachments(state).length;
    enc = withoutEntries(enc, drop);
    const kept = new Set(referencedBlobs(enc));
    for (const h of Object.keys(blobs)) if (!kept.has(h)) delete blobs[h];
    turns = turns.map((t) => ({ ...t, attachments: t.attachments.filter((a) => !drop.has(a.key)) }));
  }
  const payload = { format: EXPORT_FORMAT, v: FORMAT_VERSION, chat: { id: loaded.id, title }, state: enc, turns, blobs, omitted };
  const json = JSON.stringify(payload);
  const md =
    renderMarkdown(loaded.id, title, state, loaded.engine, redacted, omitted) +
    `\n<!-- strata-chat: ${Buffer.from(json, 'utf8').toString('base64')} -->\n`;
  for (const s of secrets) {
    if (md.includes(s) || json.includes(s))
      throw new ChatStoreError('secret', `chat ${loaded.id} was not exported: a secret would have appeared in it`);
  }
  return md;
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** A copy of `state` with every secret replaced in snapshots, previews, messages and the summary. */
function scrubState(state: ChatState, secrets: readonly string[]): { state: ChatState; redacted: string[] } {
  if (secrets.length === 0) return { state, redacted: [] };
  const redacted: string[] = [];
  const entries = new Map<string, EntryState>();
  for (const [k, e] of state.entries) {
    const content = scrub(e.artifact.content, secrets);
    let next: EntryState = e;
    if (content !== e.artifact.content) {
      next = { ...e, artifact: { ...e.artifact, content, contentHash: sha256Hex(content) } };
      redacted.push(k);
    }
    // A tool result is named by its call (`search_text "<query>"`): the query can be a key.
    const uri = scrub(e.artifact.source.uri, secrets);
    if (uri !== e.artifact.source.uri) {
      next = { ...next, artifact: { ...next.artifact, source: { ...next.artifact.source, uri } } };
      if (!redacted.includes(k)) redacted.push(k);
    }
    if (e.compacted) {
      const body = scrub(e.compacted.body, secrets);
      if (body !== e.compacted.body) {
        next = { ...next, compacted: { ...e.compacted, body, bodyHash: sha256Hex(body) } };
        if (!redacted.includes(k)) redacted.push(k);
      }
    }
    entries.set(k, next);
  }
  const turns = state.turns.map((t) => {
    const turn = { ...t, userText: scrub(t.userText, secrets), reply: scrub(t.reply, secrets) };
    if (t.steps) turn.steps = t.steps.map((step) => scrubStep(step, secrets));
    return turn;
  });
  const out: ChatState = { ...state, entries, turns };
  if (state.summary) out.summary = { ...state.summary, text: scrub(state.summary.text, secrets) };
  return { state: out, redacted };
}

/**
 * A tool step with every secret replaced: what the model said, its calls' arguments (a key it put in
 * a search query) and the results' notes.
 */
function scrubStep(step: ToolStepRecord, secrets: readonly string[]): ToolStepRecord {
  return {
    text: scrub(step.text, secrets),
    calls: step.calls.map((c) => ({ ...c, args: scrubJson(c.args, secrets) })),
    results: step.results.map((r) => (r.note === undefined ? r : { ...r, note: scrub(r.note, secrets) })),
  };
}

/** `value` with every secret replaced in its strings (and keys). */
function scrubJson<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return scrub(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrubJson(v, secrets)) as T;
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k, secrets), scrubJson(v, secrets)])) as T;
  return value;
}

function fenceFor(text: string): string {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function describeEntry(e: EntryState): string {
  const a = e.artifact;
  const where = a.source.range ? `${a.source.uri} lines ${a.source.range.startLine}-${a.source.range.endLine}` : a.source.uri;
  return `\`${where.replace(/`/g, "'")}\` (${a.kind}${a.version > 1 ? `, version ${a.version}` : ''}, sha ${a.contentHash.slice(0, 8)})`;
}

function renderMarkdown(
  id: string,
  title: string,
  state: ChatState,
  engine: EngineMeta | undefined,
  redacted: string[],
  omitted: number | undefined,
): string {
  const out: string[] = [`# ${title.replace(/\n/g, ' ')}`, ''];
  const facts = [`chat \`${id}\``, `${state.completedTurns} turn${state.completedTurns === 1 ? '' : 's'}`];
  if (engine) facts.push(`layout ${engine.layout}`, `changed files: ${engine.policy}`, `context window ${engine.limits.contextWindow}`);
  out.push(`_Exported from Strata: ${facts.join(' · ')}._`, '');
  if (redacted.length > 0) out.push(`_Secrets were replaced by ${REDACTED} in ${redacted.length} attachment(s)._`, '');
  if (omitted !== undefined)
    out.push(
      `_Exported without attached files: the content of ${omitted} attached item(s) is left out; each turn still lists what it attached. Importing continues the chat without them._`,
      '',
    );
  for (const t of state.turns) {
    out.push(`## Turn ${t.turn}`, '', '**You:**', '', t.userText.length > 0 ? t.userText : '_(empty message)_', '');
    if (t.items.length > 0) {
      out.push('**Attachments:**', '');
      for (const i of t.items) {
        const e = state.entries.get(i.key)!;
        const how =
          i.mode === 'missing' ? 'file deleted, last snapshot kept' : i.mode === 'reference' ? 'referenced (sent earlier)' : 'sent in full';
        const left = omitted !== undefined && ATTACHED_KINDS.has(e.artifact.kind) ? ' (content not in this export)' : '';
        out.push(`- ${describeEntry(e)}: ${how}${left}`);
      }
      out.push('');
      for (const i of t.items) {
        const e = state.entries.get(i.key)!;
        if (e.artifact.recoverable || i.mode !== 'full' || (omitted !== undefined && ATTACHED_KINDS.has(e.artifact.kind))) continue;
        const a = e.artifact;
        const fence = fenceFor(a.content);
        const lang = /\.([A-Za-z0-9]+)$/.exec(a.source.uri)?.[1] ?? '';
        out.push(`Snapshot of ${describeEntry(e)}:`, '', `${fence}${lang}`, a.content, fence, '');
      }
    }
    out.push('**Assistant:**', '', t.reply, '');
  }
  return out.join('\n');
}
