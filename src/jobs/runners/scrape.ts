import { scrapePreflight } from '../jobEngine.js';
import type { JobRunner } from '../jobRunner.js';

export const scrapeRunner: JobRunner<'scrape'> = {
  initialRecord: () => ({ jobId: '', status: 'pending' }),
  preflight: (request, env) => scrapePreflight(request.scrapeOptions, env),
  async run(ctx) {
    const data = await ctx.engine.scrape(ctx.request.url, ctx.request.scrapeOptions, ctx.request.sessionOptions, ctx.signal, ctx.access);
    await ctx.update((record) => {
      record.data = data;
    });
  },
};
