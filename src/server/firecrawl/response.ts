/** webjobs records in Firecrawl's shapes: documents, job states, status bodies. */
import type { JobStatus, PageData, PageEntry } from '../../api/types.js';

/** A page as Firecrawl returns it: the formats asked for and its metadata, statusCode a number. */
export interface FirecrawlDocument {
  markdown?: string;
  html?: string;
  links?: string[];
  metadata: Record<string, string | number>;
  [format: string]: unknown;
}

/**
 * One page's data as a Firecrawl document. Every content field of ours (one per
 * format) is passed as it is, so formats added to webjobs appear under their own names.
 */
export function toDocument(page: PageData | PageEntry, scrapeId?: string): FirecrawlDocument {
  const { metadata, ...rest } = page;
  const content: Record<string, unknown> = { ...rest };
  let error: string | undefined;
  let sourceURL: string | undefined;
  if ('status' in page) {
    // A batch or crawl entry: its url, status and error become metadata, as Firecrawl has them.
    delete content.url;
    delete content.status;
    delete content.error;
    error = page.error ?? undefined;
    sourceURL = page.url;
  }
  const statusCode = Number(metadata.statusCode);
  return {
    ...content,
    metadata: {
      ...(sourceURL !== undefined ? { sourceURL } : {}),
      ...metadata,
      ...(Number.isInteger(statusCode) ? { statusCode } : {}),
      ...(error ? { error } : {}),
      ...(scrapeId ? { scrapeId } : {}),
    },
  };
}

/** Firecrawl's states of a crawl or batch scrape. */
export type FirecrawlJobState = 'scraping' | 'completed' | 'failed' | 'cancelled';

export function crawlState(status: JobStatus): FirecrawlJobState {
  if (status === 'pending' || status === 'running') return 'scraping';
  return status === 'stopped' ? 'cancelled' : status;
}

/** Firecrawl's states of an extract job. */
export function extractState(status: JobStatus): 'processing' | 'completed' | 'failed' | 'cancelled' {
  if (status === 'pending' || status === 'running') return 'processing';
  return status === 'stopped' ? 'cancelled' : status;
}

/** Pages of a batch or crawl that have finished; a batch's URLs not yet done are not documents yet. */
export function finishedDocuments(entries: readonly PageEntry[]): FirecrawlDocument[] {
  return entries.filter((entry) => entry.status !== 'pending').map((entry) => toDocument(entry));
}
