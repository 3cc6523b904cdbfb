/**
 * Extract jobs: (generate the schema from the prompt,) scrape every URL as main-
 * content markdown, then have the model (Claude, or any OpenAI-compatible server)
 * fill the schema (src/engine/extract/).
 * A page that cannot be scraped fails the job: extracting from the pages that
 * happened to load would return data the user cannot tell is incomplete.
 */
import type { ExtractJob, ExtractRequest } from '../../api/types.js';
import type { ScrapedPage } from '../../engine/extract/chunk.js';
import { inputBudget } from '../../engine/extract/extractor.js';
import { llmSettings } from '../../engine/extract/llm.js';
import { createProvider } from '../../engine/extract/providers/index.js';
import type { ModelProvider } from '../../engine/extract/providers/provider.js';
import { checkSchema, type CheckedSchema } from '../../engine/extract/schema.js';
import { askedSchema, extractWithModel } from '../extractStep.js';
import type { JobContext, JobRunner } from '../jobRunner.js';
import { scrapeForExtract, withoutModel } from './extractNoModel.js';

type Metadata = NonNullable<ExtractJob['metadata']>;

async function scrapePages(ctx: JobContext<'extract'>): Promise<ScrapedPage[]> {
  const pages: ScrapedPage[] = [];
  for (const url of ctx.request.urls) {
    const data = await scrapeForExtract(ctx, url, { formats: ['markdown'], onlyMainContent: true });
    pages.push({ url, title: data.metadata.title ?? '', markdown: data.markdown ?? '' });
  }
  return pages;
}

async function schemaFor(ctx: JobContext<'extract'>, llm: ModelProvider): Promise<CheckedSchema> {
  const checked = await askedSchema(llm, ctx.request, ctx.signal);
  // A generated one is kept at once, so that even a job failing later shows the schema it would have used.
  if (!ctx.request.schema) {
    await ctx.update((record) => {
      (record as ExtractJob).schema = checked.schema;
    });
  }
  return checked;
}

export const extractRunner: JobRunner<'extract'> = {
  initialRecord: (request: ExtractRequest) => ({
    jobId: '',
    status: 'pending',
    ...(request.schema ? { schema: request.schema } : {}),
  }),

  /** Refuses the job before it exists: no key, an unknown provider, a bad model setting, or a schema that is not JSON Schema (extractNoModel.ts: what needs no model). */
  preflight(request, env) {
    const noModel = withoutModel(request, env);
    if (noModel) return noModel.preflight();
    llmSettings(env, request);
    inputBudget(env);
    if (request.schema) checkSchema(request.schema);
  },

  async run(ctx) {
    const noModel = withoutModel(ctx.request, ctx.env);
    if (noModel) return noModel.run(ctx);
    const llm = createProvider(llmSettings(ctx.env, ctx.request));
    const metadata: Metadata = { inputTokens: 0, outputTokens: 0, numPagesScraped: 0 };
    const saveMetadata = () =>
      ctx.update((record) => {
        (record as ExtractJob).metadata = { ...metadata, ...llm.usage };
      });
    try {
      const schema = await schemaFor(ctx, llm);
      const pages = await scrapePages(ctx);
      metadata.numPagesScraped = pages.length;
      const data = await extractWithModel(llm, ctx.request, schema, pages, ctx.env, ctx.signal);
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
