import type { JobKind } from '../../api/types.js';
import type { JobRunner } from '../jobRunner.js';

/**
 * One runner per job kind, loaded when a job of that kind starts or runs: a scrape
 * never loads what batch, crawl and extract need (extract's alone loads the LLM
 * client and Ajv, ~0.3 s).
 */
const LOADERS: { [K in JobKind]?: () => Promise<JobRunner<K>> } = {
  scrape: async () => (await import('./scrape.js')).scrapeRunner,
  batch: async () => (await import('./batch.js')).batchRunner,
  crawl: async () => (await import('./crawl.js')).crawlRunner,
  extract: async () => (await import('./extract.js')).extractRunner,
};

/** The runner of `kind`'s jobs; undefined when this build has none. The back ends look kinds up here. */
export async function loadRunner<K extends JobKind>(kind: K): Promise<JobRunner<K> | undefined> {
  const load = LOADERS[kind] as (() => Promise<JobRunner<K>>) | undefined;
  return load?.();
}
