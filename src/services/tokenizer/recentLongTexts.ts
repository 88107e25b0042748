/**
 * The counts of the last few long texts, keyed by the texts themselves: the engine counts the same
 * block string several times per turn, and a lookup by content needs no hashing. At most 8 texts and
 * 32 M characters are kept; they are usually alive in the engine anyway.
 */
export class RecentLongTexts {
  private readonly counts = new Map<string, number>();
  private chars = 0;

  get(text: string): number | undefined {
    return this.counts.get(text);
  }

  has(text: string): boolean {
    return this.counts.has(text);
  }

  remember(text: string, n: number): void {
    if (this.counts.has(text)) return;
    this.counts.set(text, n);
    this.chars += text.length;
    while (this.counts.size > 8 || this.chars > 32_000_000) {
      const oldest = this.counts.keys().next().value as string;
      this.counts.delete(oldest);
      this.chars -= oldest.length;
    }
  }

  clear(): void {
    this.counts.clear();
    this.chars = 0;
  }
}
