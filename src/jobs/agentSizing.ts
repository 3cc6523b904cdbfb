/**
 * Pages sized for agents (src/agents/): `maxTokens` cuts each page's Markdown after
 * the last whole block that fits (metadata.truncated: true), then the chunks format
 * splits what is left into chunks of at most `chunkTokens` tokens.
 *
 * The page is read as if neither were asked (chunks become markdown, the two budgets
 * are left out), so that the page cache keeps, and answers with, the whole page
 * whatever the budget. Loaded, with the tokenizer, only by a job that asks.
 */
import type { Format, PageMetadata } from '../api/types.js';
import { cutMarkdown } from '../agents/budget.js';
import { chunkMarkdown } from '../agents/chunks.js';
import { DEFAULT_CHUNK_TOKENS, tokenCounter } from '../agents/tokens.js';
import type { Engine, EnginePage } from '../engine/engine.js';

type Scrape = Engine['scrape'];

/** The metadata of a page whose Markdown was cut: truncated is the one value that is not a string (types.ts). */
function truncated(metadata: PageMetadata): PageMetadata {
  return Object.assign({}, metadata, { truncated: true });
}

export function scrapeSized(scrape: Scrape): Scrape {
  return async (url, scrapeOptions, ...rest) => {
    const { chunkTokens, maxTokens, ...options } = scrapeOptions ?? {};
    const asked: Format[] = options.formats ?? ['markdown'];
    const sized = asked.includes('chunks') || asked.includes('markdown');
    const formats = asked.filter((format) => format !== 'chunks');
    if (sized && !formats.includes('markdown')) formats.push('markdown');
    const read = await scrape(url, { ...options, formats }, ...rest);
    if (!sized) return read;
    const page: EnginePage = { ...read };
    const count = await tokenCounter();
    let markdown = read.markdown ?? '';
    if (maxTokens !== undefined) {
      const cut = cutMarkdown(markdown, maxTokens, count);
      if (cut.truncated) {
        markdown = cut.markdown;
        page.metadata = truncated(page.metadata);
      }
    }
    if (asked.includes('markdown')) page.markdown = markdown;
    else delete page.markdown;
    if (asked.includes('chunks')) page.chunks = chunkMarkdown(markdown, chunkTokens ?? DEFAULT_CHUNK_TOKENS, count);
    return page;
  };
}
