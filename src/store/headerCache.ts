/**
 * Job headers kept in memory in front of a job store, for `webjobs serve`: status
 * and listings are its most frequent requests, and under load each file read
 * queued behind the record and page writes in libuv's four-thread pool (serve's
 * handler time for a status read went to p99 147 ms while /healthz, with no I/O,
 * stayed at 10 ms; bench:serve). Writes go through to the store as before.
 *
 * A header is answered from memory only while it cannot have changed without
 * this process knowing:
 *   - its status is final (pending → running → final, and back to pending only
 *     by a resume, which serve makes through update() here), or
 *   - this process owns the job: it is the one moving the job forward, and every
 *     change of its own goes through update() here.
 * A cancel written by another process (the CLI on the same WEBJOBS_HOME) reaches a
 * running job through storedHeader(), which always reads the store; the job then
 * ends and records that, here. Entries are bounded; an evicted header is read again.
 */
import os from 'node:os';
import { isFinal, type JobKind, type JobRequest, type JobStatus, type PageEntry } from '../api/types.js';
import { headerOf, type DamagedJob, type JobHeader, type JobMeta, type OwnedJobStore, type RecordHeader, type StoredJob } from '../jobs/jobStore.js';
import type { JobOwner } from '../jobs/leases.js';

const DEFAULT_MAX_ENTRIES = 50_000;

export class HeaderCache implements OwnedJobStore {
  private readonly headers = new Map<string, JobHeader>();

  constructor(
    private readonly store: OwnedJobStore,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
  ) {}

  /** Whether `header` can change only through this process. */
  private static lasting(header: JobHeader): boolean {
    return isFinal(header.status) || (header.owner.pid === process.pid && header.owner.host === os.hostname());
  }

  private remember(header: JobHeader): JobHeader {
    this.headers.delete(header.jobId);
    if (HeaderCache.lasting(header)) {
      this.headers.set(header.jobId, header);
      // A Map iterates in insertion order: the first key is the least recently stored.
      if (this.headers.size > this.maxEntries) this.headers.delete(this.headers.keys().next().value!);
    }
    return header;
  }

  private stored(job: StoredJob): StoredJob {
    this.remember(headerOf(job));
    return job;
  }

  async create(kind: JobKind, request: JobRequest, initial: RecordHeader): Promise<StoredJob> {
    return this.stored(await this.store.create(kind, request, initial));
  }

  async read(jobId: string): Promise<StoredJob> {
    return this.stored(await this.store.read(jobId));
  }

  async header(jobId: string): Promise<JobHeader> {
    return this.headers.get(jobId) ?? this.remember(await this.store.header(jobId));
  }

  /** Always the store's: what another process may have written. */
  storedHeader(jobId: string): Promise<JobHeader> {
    return this.store.storedHeader(jobId);
  }

  async update(jobId: string, change: (record: RecordHeader, meta: JobMeta) => void): Promise<StoredJob> {
    return this.stored(await this.store.update(jobId, change));
  }

  async setOwner(jobId: string, pid: number): Promise<void> {
    this.headers.delete(jobId);
    await this.store.setOwner(jobId, pid);
  }

  putPage(jobId: string, index: number, entry: PageEntry): Promise<void> {
    return this.store.putPage(jobId, index, entry);
  }

  appendJournal(jobId: string, lines: readonly unknown[]): Promise<void> {
    return this.store.appendJournal(jobId, lines);
  }

  readJournal(jobId: string): Promise<unknown[]> {
    return this.store.readJournal(jobId);
  }

  readPages(jobId: string, start: number, count: number): Promise<(PageEntry | undefined)[]> {
    return this.store.readPages(jobId, start, count);
  }

  get mendPages(): OwnedJobStore['mendPages'] {
    return this.store.mendPages?.bind(this.store);
  }

  get pageTexts(): OwnedJobStore['pageTexts'] {
    return this.store.pageTexts?.bind(this.store);
  }

  get pageCounts(): OwnedJobStore['pageCounts'] {
    return this.store.pageCounts?.bind(this.store);
  }

  get pageSizes(): OwnedJobStore['pageSizes'] {
    return this.store.pageSizes?.bind(this.store);
  }

  async list(jobIds?: readonly string[]): Promise<(JobHeader | DamagedJob)[]> {
    const ids = jobIds ?? (await this.store.ids());
    const known = ids.map((jobId) => this.headers.get(jobId)).filter((h): h is JobHeader => h !== undefined);
    const missing = ids.filter((jobId) => !this.headers.has(jobId));
    const read = missing.length > 0 ? await this.store.list(missing) : [];
    for (const job of read) if (!('damaged' in job)) this.remember(job);
    return [...known, ...read].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  request(jobId: string): Promise<{ kind: JobKind; request: JobRequest }> {
    return this.store.request(jobId);
  }

  async cancel(jobId: string): Promise<JobStatus> {
    const status = await this.store.cancel(jobId);
    // The store's header now: the cancel may have met a final status, or another process's job.
    this.headers.delete(jobId);
    return status;
  }

  async remove(jobId: string): Promise<boolean> {
    const removed = await this.store.remove(jobId);
    this.headers.delete(jobId);
    return removed;
  }

  ids(): Promise<string[]> {
    return this.store.ids();
  }

  self(): Promise<JobOwner> {
    return this.store.self();
  }

  ownerAlive(owner: JobOwner): Promise<boolean> {
    return this.store.ownerAlive(owner);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
