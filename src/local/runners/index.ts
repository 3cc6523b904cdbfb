import type { JobKind } from '../../api/types.js';
import type { JobRunner } from '../jobRunner.js';
import { batchRunner } from './batch.js';
import { crawlRunner } from './crawl.js';
import { extractRunner } from './extract.js';
import { scrapeRunner } from './scrape.js';

/** One runner per job kind; the LocalBackend looks kinds up here. */
export const RUNNERS: { [K in JobKind]?: JobRunner<K> } = {
  scrape: scrapeRunner,
  batch: batchRunner,
  crawl: crawlRunner,
  extract: extractRunner,
};
