/**
 * Extract jobs: (generate the schema from the prompt,) scrape every URL as main-
 * content markdown, then have Claude fill the schema (src/engine/extract/).
 * A page that cannot be scraped fails the job: extracting from the pages that
 * happened to load would return data the user cannot tell is incomplete.
 */
import { PageError, errorMessage } from '../../api/errors.js';
import type { ExtractJob, ExtractRequest } from '../../api/types.js';
import type { ScrapedPage } from '../../engine/extract/chunk.js';
import { extractData, generateSchema, inputBudget } from '../../engine/extract/extractor.js';
import { LlmClient, llmSettings } from '../../engine/extract/llm.js';
import { checkSchema, type CheckedSchema } from '../../engine/extract/schema.js';
import type { JobContext, JobRunner } from '../jobRunner.js';

type Metadata = NonNullable<ExtractJob['metadata']>;

async function scrapePages(ctx: JobContext<'extract'>): Promise<ScrapedPage[]> {
  const pages: ScrapedPage[] = [];
  for (const url of ctx.request.urls) {
    ctx.signal.throwIfAborted();
    let data;
    try {
      data = await ctx.engine.scrape(url, { formats: ['markdown'], onlyMainContent: true }, ctx.request.sessionOptions, ctx.signal);
    } catch (err) {
      throw new PageError(`could not scrape ${url}: ${errorMessage(err)}`);
    }
    const status = Number(data.metadata.statusCode);
    if (status >= 400) throw new PageError(`could not scrape ${url}: the server answered HTTP ${status}`);
    pages.push({ url, title: data.metadata.title ?? '', markdown: data.markdown ?? '' });
  }
  return pages;
}

async function schemaFor(ctx: JobContext<'extract'>, llm: LlmClient): Promise<CheckedSchema> {
  const { schema, prompt, systemPrompt } = ctx.request;
  if (schema) return checkSchema(schema);
  const generated = await generateSchema(llm, prompt!, systemPrompt, ctx.signal);
  // Kept at once, so that even a job failing later shows the schema it would have used.
  await ctx.update((record) => {
    (record as ExtractJob).schema = generated.schema;
  });
  return generated;
}

export const extractRunner: JobRunner<'extract'> = {
  initialRecord: (request: ExtractRequest) => ({
    jobId: '',
    status: 'pending',
    ...(request.schema ? { schema: request.schema } : {}),
  }),

  /** Refuses the job before it exists: no key, a bad model setting, or a schema that is not JSON Schema. */
  preflight(request, env) {
    llmSettings(env, request.model);
    inputBudget(env);
    if (request.schema) checkSchema(request.schema);
  },

  async run(ctx) {
    const llm = new LlmClient(llmSettings(ctx.env, ctx.request.model));
    const metadata: Metadata = { inputTokens: 0, outputTokens: 0, numPagesScraped: 0 };
    const saveMetadata = () =>
      ctx.update((record) => {
        (record as ExtractJob).metadata = { ...metadata, ...llm.usage };
      });
    try {
      const schema = await schemaFor(ctx, llm);
      const pages = await scrapePages(ctx);
      metadata.numPagesScraped = pages.length;
      const data = await extractData(
        llm,
        { pages, schema, prompt: ctx.request.prompt, systemPrompt: ctx.request.systemPrompt, budgetTokens: inputBudget(ctx.env) },
        ctx.signal,
      );
      await ctx.update((record) => {
        record.data = data;
      });
    } finally {
      // Tokens spent count even when the job fails.
      await saveMetadata();
    }
  },

  expectedPages: (request) => request.urls.length,
};
