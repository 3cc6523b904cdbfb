/**
 * Tokens as current OpenAI models count them (o200k_base), with gpt-tokenizer: exact
 * counts, not an estimate. The tokenizer's tables take about a second to load, so
 * they are loaded on the first call only: a job that asks for no chunks and no
 * token budget never pays for them.
 */

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

let loading: Promise<CountTokens> | undefined;

/** The o200k_base counter, loaded once per process. Special tokens in a page ("<|endoftext|>") count as plain text. */
export function tokenCounter(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => {
    const plain = { disallowedSpecial: new Set<string>() };
    return (text: string) => (text === '' ? 0 : countTokens(text, plain));
  });
  return loading;
}

/** The least token budget a chunk or a cut may be given: below it a heading alone would not fit. */
export const MIN_TOKENS = 16;
/** A chunk's budget when none is asked for. */
export const DEFAULT_CHUNK_TOKENS = 512;
