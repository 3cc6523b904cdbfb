/** Job headers in memory for serve (headerCache.ts): answered without the file system only while they cannot have changed unseen. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobNotFoundError } from '../src/api/errors.js';
import { FileJobStore } from '../src/store/fileStore.js';
import { HeaderCache } from '../src/store/headerCache.js';
import { tempHome } from './helpers/cli.js';

const request = { url: 'https://example.com/' };
const pending = { jobId: '', status: 'pending' } as const;

describe('HeaderCache', () => {
  it("answers this process's jobs from memory: their status with the job's files gone from disk", async () => {
    const home = tempHome();
    const store = new HeaderCache(new FileJobStore(home));
    const { meta } = await store.create('scrape', request, pending);
    await store.update(meta.jobId, (record) => void (record.status = 'running'));
    await fs.rm(path.join(home, 'jobs', meta.jobId), { recursive: true });
    expect((await store.header(meta.jobId)).status).toBe('running');
    expect((await store.list([meta.jobId])).map((job) => 'status' in job && job.status)).toEqual(['running']);
  });

  it("reads again a job another process runs, until its status is final; storedHeader always reads the store", async () => {
    const home = tempHome();
    const other = new FileJobStore(home);
    const store = new HeaderCache(new FileJobStore(home));
    const { meta } = await other.create('scrape', request, pending);
    await other.setOwner(meta.jobId, process.ppid);
    expect((await store.header(meta.jobId)).status).toBe('pending');
    await other.update(meta.jobId, (record) => void (record.status = 'running'));
    expect((await store.header(meta.jobId)).status).toBe('running');
    await other.update(meta.jobId, (record) => void (record.status = 'completed'));
    expect((await store.header(meta.jobId)).status).toBe('completed');

    // A cancel written by another process reaches a job this process runs through storedHeader.
    const { meta: own } = await store.create('scrape', request, pending);
    await other.update(own.jobId, (record) => void (record.status = 'stopped'));
    expect((await store.header(own.jobId)).status).toBe('pending');
    expect((await store.storedHeader(own.jobId)).status).toBe('stopped');
  });

  it('forgets a removed job, and keeps at most maxEntries headers', async () => {
    const home = tempHome();
    const store = new HeaderCache(new FileJobStore(home), 2);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { meta } = await store.create('scrape', request, pending);
      await store.update(meta.jobId, (record) => void (record.status = 'completed'));
      ids.push(meta.jobId);
    }
    await fs.rm(path.join(home, 'jobs', ids[0]!), { recursive: true });
    // The oldest header was evicted: it is read again, and its job is gone.
    await expect(store.header(ids[0]!)).rejects.toBeInstanceOf(JobNotFoundError);
    expect((await store.header(ids[2]!)).status).toBe('completed');
    expect(await store.remove(ids[2]!)).toBe(true);
    await expect(store.header(ids[2]!)).rejects.toBeInstanceOf(JobNotFoundError);
  });
});
