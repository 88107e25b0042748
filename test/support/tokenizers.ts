import { getTokenizer, type Tokenizer } from '../../src/services/tokenizer';

/** The extension's own tokenizer, so usage numbers in the provider tests are real o200k/cl100k counts. */
export function projectTokenizer(encoding: 'o200k_base' | 'cl100k_base' = 'o200k_base'): Tokenizer {
  return getTokenizer(encoding);
}
