/** A tiny deterministic tokenizer for tests: one token per Unicode code point (id = code point). */
export interface CharTokenizer {
  readonly encoding: string;
  encode(text: string): number[];
  count(text: string): number;
}

export function charTokenizer(): CharTokenizer {
  return {
    encoding: 'char',
    encode: (text) => Array.from(text, (c) => c.codePointAt(0) as number),
    count: (text) => Array.from(text).length,
  };
}
