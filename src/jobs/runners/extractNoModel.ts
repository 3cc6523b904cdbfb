/**
 * Extract jobs that need no model (issue 42):
 *
 * - `selectors` (Crawl4AI's JSON CSS schema): every page is read, and the items
 *   the schema finds on each (api/cssSchema.ts, engine/structured/cssExtract.ts)
 *   are the result, one array for all pages in the order given.
 * - `schema` alone, with no model configured (no ANTHROPIC_API_KEY nor
 *   OPENAI_API_KEY): the schema is filled from the pages' structured data
 *   (engine/extract/fromStructured.ts). The record lists the fields not found in
 *   `missing` and says so in `warning`. When what was found does not satisfy the
 *   schema (a required field is missing, a value has the wrong type), the job
 *   fails, its data and `missing` kept: a half-filled record never passes for a
 *   complete one.
 */
import { PageError, errorMessage } from '../../api/errors.js';
import type { ExtractJob, ExtractRequest } from '../../api/types.js';
import type { EnginePage, EngineScrapeOptions } from '../../engine/engine.js';
import { checkSchema } from '../../engine/extract/schema.js';
import { fillFromStructuredData, fillsWithoutModel } from '../extractStep.js';
import type { JobContext } from '../jobRunner.js';

export interface NoModelPlan {
  preflight(): void;
  run(ctx: JobContext<'extract'>): Promise<void>;
}

/** How the request is served without a model, or undefined when it needs one. */
export function withoutModel(request: ExtractRequest, env: NodeJS.ProcessEnv): NoModelPlan | undefined {
  if (request.selectors) return { preflight: () => undefined, run: runSelectors };
  if (fillsWithoutModel(request, env)) {
    return { preflight: () => void checkSchema(request.schema), run: fillSchema };
  }
  return undefined;
}

/** One page of an extract job: a page that cannot be scraped, or answers an HTTP error, fails the job. */
export async function scrapeForExtract(ctx: JobContext<'extract'>, url: string, options: EngineScrapeOptions): Promise<EnginePage> {
  ctx.signal.throwIfAborted();
  let data: EnginePage;
  try {
    data = await ctx.engine.scrape(url, options, ctx.request.sessionOptions, ctx.signal);
  } catch (err) {
    throw new PageError(`could not scrape ${url}: ${errorMessage(err)}`);
  }
  const status = Number(data.metadata.statusCode);
  if (status >= 400) throw new PageError(`could not scrape ${url}: the server answered HTTP ${status}`);
  return data;
}

const noTokens = (pages: number): NonNullable<ExtractJob['metadata']> => ({ inputTokens: 0, outputTokens: 0, numPagesScraped: pages });

async function runSelectors(ctx: JobContext<'extract'>): Promise<void> {
  const items: Record<string, unknown>[] = [];
  for (const url of ctx.request.urls) {
    // links: the cheapest extraction; the items are read from the page's final HTML beside it.
    const page = await scrapeForExtract(ctx, url, { formats: ['links'], selectors: ctx.request.selectors });
    items.push(...(page.selected ?? []));
  }
  await ctx.update((record) => {
    record.data = items;
    (record as ExtractJob).metadata = noTokens(ctx.request.urls.length);
  });
}

async function fillSchema(ctx: JobContext<'extract'>): Promise<void> {
  const checked = checkSchema(ctx.request.schema);
  const structured: Record<string, unknown>[] = [];
  for (const url of ctx.request.urls) {
    const page = await scrapeForExtract(ctx, url, { formats: ['structuredData'] });
    structured.push(...(page.structuredData ?? []));
  }
  const { data, missing, warning, failure } = fillFromStructuredData(checked, structured, 'several');
  await ctx.update((record) => {
    const job = record as ExtractJob;
    if (data !== undefined) job.data = data;
    job.metadata = noTokens(ctx.request.urls.length);
    job.missing = missing;
    if (warning) job.warning = warning;
  });
  if (failure) throw new PageError(`${failure}${data === undefined ? '' : "; what was found is in the record's data"}`);
}
