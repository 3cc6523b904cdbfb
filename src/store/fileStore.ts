/**
 * On-disk job store. One folder per job under `<home>/jobs/<jobId>/`:
 *   job.json   the record exactly as the spec's GET result endpoint returns it
 *              (for batch and crawl without `data`, whose entries are in pages/)
 *   meta.json  kind, request, creation time and owning process
 *   pages/     one file per batch/crawl page entry, named by its 0-based index
 * Pages are written as they finish, so a 1,000-URL batch never sits in memory.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JobNotFoundError } from '../api/errors.js';
import { JOB_ID_PATTERN } from '../api/validate.js';
import type { JobKind, JobRequest, PageEntry } from '../api/types.js';
import { readJson, withFileLock, writeJsonAtomic } from './atomicFile.js';
import type { JobMeta, JobStore, RecordHeader, StoredJob } from './jobStore.js';

const PAGE_NAME_WIDTH = 6;

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function requestUrl(request: JobRequest): string {
  if ('url' in request) return request.url;
  return request.urls[0] ?? '';
}

export class FileJobStore implements JobStore {
  private readonly jobsDir: string;
  /** Serialises this process's writes to one job, so they do not queue on the file lock. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(home: string) {
    this.jobsDir = path.join(home, 'jobs');
  }

  private dir(jobId: string): string {
    return path.join(this.jobsDir, jobId);
  }

  async create(kind: JobKind, request: JobRequest, initial: RecordHeader): Promise<StoredJob> {
    const jobId = randomUUID();
    const dir = this.dir(jobId);
    await fs.mkdir(path.join(dir, 'pages'), { recursive: true });
    const meta: JobMeta = {
      jobId,
      kind,
      createdAt: new Date().toISOString(),
      url: requestUrl(request),
      request,
      owner: { pid: process.pid, host: os.hostname() },
    };
    const record = { ...initial, jobId } as RecordHeader;
    await writeJsonAtomic(path.join(dir, 'meta.json'), meta);
    await writeJsonAtomic(path.join(dir, 'job.json'), record);
    return { meta, record };
  }

  private async readRaw(jobId: string): Promise<StoredJob> {
    const dir = this.dir(jobId);
    try {
      const [meta, record] = await Promise.all([
        readJson<JobMeta>(path.join(dir, 'meta.json')),
        readJson<RecordHeader>(path.join(dir, 'job.json')),
      ]);
      return { meta, record };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new JobNotFoundError(jobId);
      throw err;
    }
  }

  async read(jobId: string): Promise<StoredJob> {
    const job = await this.readRaw(jobId);
    if (this.ownerDied(job)) {
      return this.update(jobId, (record, meta) => {
        if (record.status === 'pending' || record.status === 'running') {
          record.status = 'failed';
          record.error = `interrupted: the process that ran this job (pid ${meta.owner.pid}) exited before the job finished; start it again`;
        }
      });
    }
    return job;
  }

  private ownerDied({ meta, record }: StoredJob): boolean {
    if (record.status !== 'pending' && record.status !== 'running') return false;
    if (meta.owner.host !== os.hostname()) return false;
    return !isProcessAlive(meta.owner.pid);
  }

  private serialise<T>(jobId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(jobId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.chains.set(jobId, settled);
    void settled.then(() => {
      if (this.chains.get(jobId) === settled) this.chains.delete(jobId);
    });
    return next;
  }

  update(jobId: string, change: (record: RecordHeader, meta: JobMeta) => void): Promise<StoredJob> {
    return this.serialise(jobId, () =>
      withFileLock(path.join(this.dir(jobId), 'job.lock'), async () => {
        const job = await this.readRaw(jobId);
        const before = JSON.stringify(job.meta);
        change(job.record, job.meta);
        if (JSON.stringify(job.meta) !== before) await writeJsonAtomic(path.join(this.dir(jobId), 'meta.json'), job.meta);
        await writeJsonAtomic(path.join(this.dir(jobId), 'job.json'), job.record);
        return job;
      }),
    );
  }

  async setOwner(jobId: string, pid: number): Promise<void> {
    await this.serialise(jobId, () =>
      withFileLock(path.join(this.dir(jobId), 'job.lock'), async () => {
        const file = path.join(this.dir(jobId), 'meta.json');
        const meta = await readJson<JobMeta>(file);
        meta.owner = { pid, host: os.hostname() };
        await writeJsonAtomic(file, meta);
      }),
    );
  }

  private pageFile(jobId: string, index: number): string {
    return path.join(this.dir(jobId), 'pages', `${String(index).padStart(PAGE_NAME_WIDTH, '0')}.json`);
  }

  async putPage(jobId: string, index: number, entry: PageEntry): Promise<void> {
    await writeJsonAtomic(this.pageFile(jobId, index), entry);
  }

  async readPages(jobId: string, start: number, count: number): Promise<(PageEntry | undefined)[]> {
    const indexes = Array.from({ length: Math.max(0, count) }, (_, i) => start + i);
    return Promise.all(
      indexes.map((i) =>
        readJson<PageEntry>(this.pageFile(jobId, i)).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return undefined;
          throw err;
        }),
      ),
    );
  }

  async ids(): Promise<string[]> {
    const names = await fs.readdir(this.jobsDir).catch(() => [] as string[]);
    return names.filter((name) => JOB_ID_PATTERN.test(name));
  }

  async list(): Promise<StoredJob[]> {
    const jobs = await Promise.all((await this.ids()).map((jobId) => this.read(jobId).catch(() => undefined)));
    return jobs
      .filter((job): job is StoredJob => job !== undefined)
      .sort((a, b) => a.meta.createdAt.localeCompare(b.meta.createdAt));
  }
}
