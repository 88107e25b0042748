import type { TurnEnvelope } from '../../engine/engine';
import type { ProviderUsage } from '../../services/providers/types';
import type { TurnOutcome } from '../../services/turnPipeline';

/** What the tree shows of a request sent earlier: its figures and ledger, not its messages. */
export type RequestFigures = Pick<
  TurnEnvelope,
  'turn' | 'ledger' | 'totalTokens' | 'budget' | 'prefixBreak' | 'prefixBreakReason' | 'pruned'
>;

/** A request sent (or previewed) in this window, as the tree and "Show Last Request" show it. */
export interface SentRequest {
  chatId: string;
  turn: number;
  /**
   * The request as built. Kept whole (messages, segments) from the chat's last settled request on;
   * an older one keeps only its figures and ledger, which is all the tree shows of it (whole, the
   * 200 kept requests of a 1,000-turn chat would hold ~15 MB).
   */
  envelope: TurnEnvelope | RequestFigures;
  /** `streaming` while the reply comes in. */
  status: TurnOutcome['status'] | 'streaming';
  usage?: ProviderUsage;
  /** `provider · model` label. */
  model: string;
  provider: string;
}

/** A kept request with its whole envelope. */
export type WholeRequest = SentRequest & { envelope: TurnEnvelope };

/** Requests kept per chat; older ones are dropped to bound memory. */
const KEPT_PER_CHAT = 200;

/** The requests sent (or previewed) in this window, per chat and turn: the tree's breakdowns and Show Last Request. */
export class SentRequestLog {
  private readonly byChat = new Map<string, Map<number, SentRequest>>();

  record(r: SentRequest): void {
    let byTurn = this.byChat.get(r.chatId);
    if (!byTurn) {
      byTurn = new Map();
      this.byChat.set(r.chatId, byTurn);
    }
    // A preview does not replace a request that was really sent for that turn.
    if (r.status === 'preview' && byTurn.get(r.turn) && byTurn.get(r.turn)!.status !== 'preview') return;
    byTurn.set(r.turn, r);
    // Keep the memory bounded: the newest requests of a chat, and whole only from the last settled
    // one on ("Show Last Request" may fall back to it when a newer turn fails).
    if (byTurn.size > KEPT_PER_CHAT) byTurn.delete(Math.min(...byTurn.keys()));
    let settled = -1;
    for (const x of byTurn.values()) if (x.status !== 'error' && x.status !== 'streaming' && x.turn > settled) settled = x.turn;
    for (const x of byTurn.values()) if (x.turn < settled && isWhole(x.envelope)) x.envelope = figuresOf(x.envelope);
  }

  /** The chat was deleted: its requests go too. */
  forget(chatId: string): void {
    this.byChat.delete(chatId);
  }

  /** Requests of a chat, by turn. */
  of(chatId: string): ReadonlyMap<number, SentRequest> {
    return this.byChat.get(chatId) ?? new Map();
  }

  /** The last request of a chat that went out (or was previewed), if this window made it. */
  last(chatId: string): WholeRequest | undefined {
    const byTurn = this.byChat.get(chatId);
    if (!byTurn || byTurn.size === 0) return undefined;
    let best: WholeRequest | undefined;
    for (const r of byTurn.values())
      if (r.status !== 'error' && isWhole(r.envelope) && (!best || r.turn >= best.turn)) best = r as WholeRequest;
    return best;
  }
}

function isWhole(e: TurnEnvelope | RequestFigures): e is TurnEnvelope {
  return 'messages' in e;
}

function figuresOf(e: TurnEnvelope): RequestFigures {
  const f: RequestFigures = {
    turn: e.turn,
    ledger: e.ledger,
    totalTokens: e.totalTokens,
    budget: e.budget,
    prefixBreak: e.prefixBreak,
    pruned: e.pruned,
  };
  if (e.prefixBreakReason !== undefined) f.prefixBreakReason = e.prefixBreakReason;
  return f;
}

/** The dump form of a request (what the preview and Show Last Request show). */
export function requestDump(env: TurnEnvelope): string {
  return `${JSON.stringify({ turn: env.turn, messages: env.messages }, null, 2)}\n`;
}
