/**
 * A batch or crawl whose stored entries cannot be read (DamagedPagesError, store/pageMend.ts): `webjobs resume`
 * mends it and redoes them, `webjobs retry` runs them again. The store says what is damaged; this only asks.
 */
import { DamagedPagesError } from '../api/errors.js';
import type { OwnedJobStore } from '../jobs/jobStore.js';
import { entryCount } from './records.js';

/** Entries read at a time when every entry is read. */
const CHUNK = 100;

/**
 * Whether the job's entries are damaged: the store's check of the job as a whole, then each entry read. Other
 * errors (a damaged record, no such job) are thrown on.
 */
export async function pagesDamaged(store: OwnedJobStore, jobId: string): Promise<boolean> {
  try {
    const job = await store.read(jobId);
    const total = entryCount(job);
    for (let start = 0; start < total; start += CHUNK) await store.readPages(jobId, start, Math.min(CHUNK, total - start));
    return false;
  } catch (err) {
    if (err instanceof DamagedPagesError) return true;
    throw err;
  }
}
