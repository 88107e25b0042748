/**
 * What a save reuses from the saves before it. The engine's turn records are never changed once made,
 * and its entries change by replacing fields: each saved one's encoded form (the object the chat's
 * chain holds) is remembered, so a save encodes, canonicalizes and hashes only what changed since, not
 * the whole chat.
 */
import type { ChatState, EntryState, TurnRecord } from '../../engine/state';
import { encodeState, type EncodedEntry, type EncodedState, type EngineMeta } from '../../engine/stateCodec';
import { canonicalize, type StateChain } from './chatChain';

/** A state encoded for a save, with the parts encoded afresh (remembered once the save's chain holds them). */
export interface EncodedSave {
  enc: EncodedState;
  turnsAfresh: TurnRecord[];
  entriesAfresh: EntryState[];
}

export class SavedForms {
  /** Each saved turn record's encoded form, as the object the chain holds. */
  private readonly savedTurns = new WeakMap<TurnRecord, TurnRecord>();
  /**
   * Per chat, the turns saved last (a copy of the state's array) and the chain they were saved into:
   * while that chain is the chat's head, turn i of the next state, when it is the same object as
   * then, is the chain's turn i — a comparison per turn instead of a table lookup.
   */
  private readonly lastSavedTurns = new Map<string, { chain: StateChain; source: readonly TurnRecord[] }>();
  /**
   * Each saved engine entry's encoded form (the chain's object) with a shallow copy of the entry as
   * it was then: an entry unchanged since (every field the same value) is not encoded again (its
   * content scanned, its object rebuilt and serialized to compare it) at every save.
   */
  private readonly savedEntries = new WeakMap<EntryState, { as: EntryState; enc: EncodedEntry }>();
  /** Objects of saved states known to be canonical (see `canonicalize`): chain objects, never mutated. */
  private readonly settled = new WeakSet<object>();

  /** Encodes `state` for a save of chat `id` onto `chain` (its head), reusing the forms saved before. */
  encode(id: string, state: ChatState, engine: EngineMeta | undefined, chain: StateChain | undefined): EncodedSave {
    const headEnc = chain?.encoded();
    const entriesAfresh: EntryState[] = [];
    const turnsAfresh: TurnRecord[] = [];
    const last = this.lastSavedTurns.get(id);
    const kept = last && headEnc && last.chain === chain ? { source: last.source, encoded: headEnc.turns } : undefined;
    const enc = encodeState(state, {
      engine,
      reuse: {
        turn: (t, i) => {
          if (kept && i < kept.source.length && kept.source[i] === t) return kept.encoded[i];
          const saved = this.savedTurns.get(t);
          if (!saved) turnsAfresh.push(t);
          return saved;
        },
        entry: (e) => {
          const saved = this.savedEntries.get(e);
          if (saved && sameFields(saved.as, e)) return saved.enc;
          entriesAfresh.push(e);
          return undefined;
        },
      },
    });
    return { enc, turnsAfresh, entriesAfresh };
  }

  /** `canonicalize(enc)`, skipping the objects known canonical (and adding this state's). */
  canonicalize(enc: EncodedState): { value: EncodedState; canonical: boolean } {
    return canonicalize(enc, this.settled);
  }

  /** After the save of `state` into `chain`: the forms encoded afresh are now the chain's. */
  remember(id: string, chain: StateChain, state: ChatState, save: EncodedSave): void {
    if (save.turnsAfresh.length > 0) {
      const chainTurns = chain.encoded().turns;
      // Turns encoded afresh are the newest (a new turn, a reply regenerated): look from the end.
      for (const t of save.turnsAfresh) this.savedTurns.set(t, chainTurns[state.turns.lastIndexOf(t)]);
    }
    this.lastSavedTurns.set(id, { chain, source: state.turns.slice() });
    for (const e of save.entriesAfresh) {
      const saved = chain.entry(e.key);
      if (saved) this.savedEntries.set(e, { as: { ...e }, enc: saved });
    }
  }

  /** A loaded state's turn records are those of its encoded form. */
  rememberLoaded(state: ChatState, enc: EncodedState): void {
    state.turns.forEach((t, i) => this.savedTurns.set(t, enc.turns[i]));
  }

  /** The chat was deleted. */
  forget(id: string): void {
    this.lastSavedTurns.delete(id);
  }
}

/** Every field of an entry, in one list: a field added to `EntryState` and not here fails to compile. */
const ENTRY_FIELDS = [
  'artifact',
  'key',
  'firstTurn',
  'presence',
  'superseded',
  'missing',
  'essential',
  'compacted',
  'inPlaceOf',
  'requestedEndLine',
  'tool',
  'withdrawn',
] as const satisfies readonly (keyof EntryState)[];
type UnlistedEntryField = Exclude<keyof EntryState, (typeof ENTRY_FIELDS)[number]>;
const everyEntryFieldListed: [UnlistedEntryField] extends [never] ? true : UnlistedEntryField = true;
void everyEntryFieldListed;

/**
 * Every field the same value (an entry's fields are primitives or objects replaced, never changed in
 * place). A field absent on one side and undefined on the other counts as the same: the encoding
 * leaves both out. Field by field, not through `Object.keys` (two arrays per entry, hundreds of
 * entries per save).
 */
function sameFields(a: EntryState, b: EntryState): boolean {
  for (const k of ENTRY_FIELDS) if (a[k] !== b[k]) return false;
  return true;
}
