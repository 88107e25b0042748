import type { Artifact, IHasher } from './types';
import type { ChatState } from './state';
import { versionKey } from './artifacts';
import { sharedFullBlock } from './render';

/**
 * sha256 of texts, memoized by text (files attached again and again are hashed once), and the
 * artifacts stored by builds since the last completed turn. `hasher` is the memoized view handed to
 * whatever makes artifacts.
 */
export class TextHashes {
  /** The memoized hasher: the same `sha256Hex` through `hash`. */
  readonly hasher: IHasher;
  private readonly hashes = new Map<string, string>();
  private hashedChars = 0;
  /** Artifacts stored by builds since the last completed turn, by version key and content hash. */
  private readonly uncommitted = new Map<string, Artifact>();
  private emptyTextHash?: string;

  /** @param baseHasher the unmemoized hasher, for inputs unique to one place (a chain step's text is never seen again). */
  constructor(readonly baseHasher: IHasher) {
    this.hasher = { sha256Hex: (text: string) => this.hash(text) };
  }

  hash(text: string): string {
    let h = this.hashes.get(text);
    if (h === undefined) {
      h = this.baseHasher.sha256Hex(text);
      // Bounded by entries and characters: re-read files arrive as new strings every turn.
      this.hashedChars += text.length;
      if (this.hashes.size > 50_000 || this.hashedChars > 64 * 1024 * 1024) {
        this.hashes.clear();
        this.hashedChars = text.length;
      }
      this.hashes.set(text, h);
    }
    return h;
  }

  /** sha256(''): the start of every hash chain. */
  get emptyHash(): string {
    return (this.emptyTextHash ??= this.hasher.sha256Hex(''));
  }

  /**
   * The artifact a new version stores: its content is a slice of its full block, rendered now, so
   * the text is held once. A build since the last completed turn that made the same version already
   * stored it: that very artifact is reused, with its block and hashes (a build abandoned for the
   * meter, then the same turn built again, renders and hashes nothing twice).
   */
  storedArtifact(a: Artifact): Artifact {
    // Keyed by content too: a version number handed out by an abandoned build is handed out again.
    const sig = `${versionKey(a.id, a.version)}\u0000${a.contentHash}`;
    const again = this.uncommitted.get(sig);
    if (again) return again;
    sharedFullBlock(a);
    this.uncommitted.set(sig, a);
    return a;
  }

  /**
   * A turn was completed. The hash memo holds its key string as first given (the caller's, for a new
   * version's content): it is keyed by the slice instead for versions the chat now holds, so the
   * caller's string is not kept alive, and forgets the others.
   */
  settleStored(committed: ChatState): void {
    for (const a of this.uncommitted.values()) {
      const h = this.hashes.get(a.content);
      if (h === undefined) continue;
      this.hashes.delete(a.content);
      if (committed.entries.get(versionKey(a.id, a.version))?.artifact === a) this.hashes.set(a.content, h);
    }
    this.uncommitted.clear();
  }
}
