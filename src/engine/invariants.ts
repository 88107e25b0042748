import type { Artifact, Envelope, IHasher, Segment } from './types';
import { LAYER_IDS } from './types';
import { extractBody } from './render';

export interface Violation {
  rule: string;
  detail: string;
}

export interface CheckContext {
  hasher: IHasher;
  /** Artifact versions by key, to check blocks are verbatim. */
  artifacts?: ReadonlyMap<string, Artifact>;
  /** Keys reported dropped (pruned, detached) at any time in this chat. */
  dropped?: ReadonlySet<string>;
  /** Set when the turn was blocked (nothing sent): the budget rule does not apply. */
  blocked?: boolean;
}

/**
 * The layer hash: a chain h0 = sha256(""), h(i) = sha256(h(i-1) "\n" id NUL sha256(text)). A chain
 * lets the engine memoize each step, so hashing a long history costs lookups, not a rehash.
 */
export function hashChainStep(prev: string, id: string, textHash: string, hasher: IHasher): string {
  return hasher.sha256Hex(`${prev}\n${id}\u0000${textHash}`);
}

export function hashLayerSegments(segments: readonly Segment[], hasher: IHasher): string {
  let h = hasher.sha256Hex('');
  for (const g of segments) h = hashChainStep(h, g.id, hasher.sha256Hex(g.text), hasher);
  return h;
}

const MIN_CONTENT_FOR_L4_CHECK = 40;

/** Checks an envelope against its invariants. Returns every violation found; an empty list means the envelope is sound. */
export function checkEnvelope(env: Envelope, budget: number, ctx: CheckContext): Violation[] {
  const v: Violation[] = [];
  const add = (rule: string, detail: string) => v.push({ rule, detail });

  if (env.layers.length !== LAYER_IDS.length || env.layers.some((l, i) => l.id !== LAYER_IDS[i])) {
    add('layer-order', `layers are ${env.layers.map((l) => l.id).join(',')}, expected L1..L5`);
  }
  const all: Segment[] = [];
  for (const layer of env.layers) {
    const ids = new Set<string>();
    for (const g of layer.segments) {
      if (ids.has(g.id)) add('duplicate-segment', `${layer.id} has segment ${g.id} twice`);
      ids.add(g.id);
      if (g.layer !== layer.id) add('segment-layer', `${g.id} is labelled ${g.layer} inside ${layer.id}`);
      all.push(g);
    }
    const hash = hashLayerSegments(layer.segments, ctx.hasher);
    if (hash !== layer.hash) add('layer-hash', `${layer.id} hash ${layer.hash.slice(0, 12)} != recomputed ${hash.slice(0, 12)}`);
    const tokens = layer.segments.reduce((n, g) => n + g.tokens, 0);
    if (tokens > layer.tokens) add('layer-tokens', `${layer.id} segments add up to ${tokens} > layer tokens ${layer.tokens}`);
  }

  // Messages carry exactly the segments' texts; a tool-call segment is its message's calls, not a block.
  const blocks = env.messages.flatMap((m) => m.content);
  if (env.messages.length > 0) {
    const blockSegs = all.filter((g) => g.kind !== 'tool-call');
    const texts = new Set(blockSegs.map((g) => g.text));
    if (blocks.length !== blockSegs.length) add('messages-segments', `${blocks.length} blocks vs ${blockSegs.length} segments`);
    const callTexts = new Set(all.filter((g) => g.kind === 'tool-call').map((g) => g.text));
    for (const m of env.messages) {
      if (!m.toolCalls || m.toolCalls.length === 0) continue;
      const json = JSON.stringify(m.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args })));
      if (!callTexts.has(json)) add('messages-segments', `the tool calls ${json.slice(0, 60)} are not a segment`);
    }
    for (const b of blocks)
      if (!texts.has(b.text)) add('messages-segments', `a block is not a segment: ${JSON.stringify(b.text.slice(0, 60))}`);
    const flagged = blocks.map((b, i) => (b.cacheBreakpoint ? i : -1)).filter((i) => i >= 0);
    if (flagged.join(',') !== env.cacheBreakpoints.join(','))
      add('breakpoints', `flags ${flagged} != cacheBreakpoints ${env.cacheBreakpoints}`);
  }
  if (env.cacheBreakpoints.length > 4) add('breakpoints', `${env.cacheBreakpoints.length} cache breakpoints (max 4)`);

  // Each artifact version at most once as a full block; references resolve within the request.
  const full = new Map<string, number>();
  const present = new Set<string>();
  for (const g of all) {
    if (g.kind === 'artifact' && g.artifactKey) full.set(g.artifactKey, (full.get(g.artifactKey) ?? 0) + 1);
    if ((g.kind === 'artifact' || g.kind === 'compacted') && g.artifactKey) present.add(g.artifactKey);
  }
  for (const [k, n] of full) if (n > 1) add('duplicate-block', `${k} is sent as a full block ${n} times`);
  for (const g of all) {
    if (g.kind === 'reference' && (!g.artifactKey || !present.has(g.artifactKey)))
      add('dangling-reference', `${g.id} refers to ${g.artifactKey}, which is not in this request`);
  }

  // Verbatim content, and non-recoverable snapshots either byte-identical or reported dropped.
  if (ctx.artifacts) {
    for (const g of all) {
      if (g.kind !== 'artifact' || !g.artifactKey) continue;
      const a = ctx.artifacts.get(g.artifactKey);
      if (!a) {
        add('unknown-artifact', `${g.artifactKey} is not a known artifact version`);
        continue;
      }
      if (/^<[a-z]+ [^\n]* format="diff"/.test(g.text)) continue;
      const body = extractBody(g.text);
      if (body !== a.content) add('not-verbatim', `${g.artifactKey} block body differs from the artifact content`);
    }
    // Library: a compacted preview never stays beside a full block of the same content (the re-sent
    // version supersedes it). Transcript keeps past messages as they were sent, so it is exempt.
    if (env.layout === 'library') {
      const fullContent = new Set<string>();
      for (const g of all) {
        const a = g.kind === 'artifact' && g.artifactKey ? ctx.artifacts.get(g.artifactKey) : undefined;
        if (a) fullContent.add(`${a.id}\u0000${a.contentHash}`);
      }
      // A tool result is exempt: a request with tool steps only grows, so a preview already in it stays
      // while the model reads the file in full (the next request drops the preview).
      const fromTool = new Set(
        all
          .filter((g) => g.kind === 'artifact' && g.tool !== undefined && g.artifactKey)
          .map((g) => ctx.artifacts!.get(g.artifactKey!))
          .filter((a): a is Artifact => !!a)
          .map((a) => `${a.id}\u0000${a.contentHash}`),
      );
      for (const g of all) {
        const a = g.kind === 'compacted' && g.artifactKey ? ctx.artifacts.get(g.artifactKey) : undefined;
        if (a && fullContent.has(`${a.id}\u0000${a.contentHash}`) && !fromTool.has(`${a.id}\u0000${a.contentHash}`))
          add('preview-and-full', `${g.artifactKey} is sent as a compacted preview beside a full block of the same content`);
      }
    }
    for (const [key, a] of ctx.artifacts) {
      if (a.recoverable || present.has(key)) continue;
      if (!ctx.dropped?.has(key)) add('lost-snapshot', `${key} (non-recoverable) is neither in the request nor reported dropped`);
    }
    // L4 never carries artifact content.
    const contents = [...ctx.artifacts.values()].map((a) => a.content).filter((c) => c.length >= MIN_CONTENT_FOR_L4_CHECK);
    for (const g of all) {
      if (g.layer !== 'L4') continue;
      if (g.kind === 'artifact' || g.kind === 'compacted') {
        add('artifact-in-L4', `${g.id} is an artifact block labelled L4`);
        continue;
      }
      if (g.kind === 'user-text' || g.kind === 'reply' || g.kind === 'summary' || g.kind === 'step-text') {
        for (const c of contents) if (g.text.includes(c)) add('artifact-in-L4', `${g.id} contains artifact content`);
      }
    }
  }

  if (!ctx.blocked && env.totalTokens > budget) add('over-budget', `${env.totalTokens} tokens > budget ${budget}`);
  return v;
}
