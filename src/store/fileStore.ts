/**
 * On-disk job store. One folder per job under `<home>/jobs/<jobId>/`:
 *   job.json     the record exactly as the spec's GET result endpoint returns it
 *                (for batch and crawl without `data`, whose entries are in pages.jsonl)
 *   meta.json    kind, request, creation time and owning process
 *   status.json  the header: status, kind, creation time, URL and owner, rewritten
 *                after job.json on every change, so that status and listings read
 *                a few hundred bytes however large the record is (job.json stays
 *                the truth: a job without status.json, or with a damaged one, is
 *                read from job.json and meta.json)
 *   pages.jsonl, pages.idx  the batch's or crawl's page entries and where each is (pageLog.ts)
 *   pages/     a job stored by an older version: one file per page entry, named by
 *              its 0-based index (read still, for an entry pages.idx lacks)
 *   journal.jsonl  a crawl's frontier as it grew (journal.ts), for `webjobs resume`
 * Pages are written as they finish, so a 1,000-URL batch never sits in memory.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DamagedPagesError, DamagedRecordError, JobNotFoundError, StoreFullError } from '../api/errors.js';
import { requestUrls, withoutCredentials } from '../api/redact.js';
import { JOB_ID_PATTERN } from '../api/validate.js';
import type { PageCounts } from '../api/pageCounts.js';
import { isFinal, type JobKind, type JobRequest, type JobStatus, type PageEntry } from '../api/types.js';
import { readJson, withFileLock, writeError, writeJsonAtomic } from './atomicFile.js';
import type { JobOwner, OwnerLeases } from '../jobs/leases.js';
import { FileLeases } from './leases.js';
import { headerOf, type DamagedJob, type JobHeader, type JobMeta, type OwnedJobStore, type PageText, type RecordHeader, type StoredJob } from '../jobs/jobStore.js';
import { pageText } from './pageText.js';
import { appendLines, readLines } from './journal.js';
import { PageIndex, PageLogWriter, readSpans, spanTexts, type Span } from './pageLog.js';
import { interruptedError } from '../jobs/resume.js';
import { lostEntries } from '../jobs/lostEntries.js';
import { checkPages, countStored, mendLog, type Mended } from './pageMend.js';

const PAGE_NAME_WIDTH = 6;


/** The URL a job is listed by, without user name and password. */
function requestUrl(request: JobRequest): string {
  return withoutCredentials(requestUrls(request)[0] ?? '');
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Each file's least shape: what was cut short or overwritten with something else fails it. */
const SHAPES = {
  'meta.json': (v: unknown) => isObject(v) && typeof v.kind === 'string' && isObject(v.owner) && isObject(v.request),
  'job.json': (v: unknown) => isObject(v) && typeof v.status === 'string',
  'status.json': (v: unknown) => isObject(v) && typeof v.status === 'string' && typeof v.kind === 'string' && isObject(v.owner),
} as const;
type JobFile = keyof typeof SHAPES;

export class FileJobStore implements OwnedJobStore {
  private readonly jobsDir: string;
  /** Serialises this process's writes to one job, so they do not queue on the file lock. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly pageLog = new PageLogWriter();
  private readonly pageIndex = new PageIndex();

  constructor(
    home: string,
    private readonly leases: OwnerLeases = new FileLeases(home),
  ) {
    this.jobsDir = path.join(home, 'jobs');
  }

  self(): Promise<JobOwner> {
    return this.leases.self();
  }

  ownerAlive(owner: JobOwner): Promise<boolean> {
    return this.leases.isAlive(owner);
  }

  close(): Promise<void> {
    return this.leases.release();
  }

  private dir(jobId: string): string {
    return path.join(this.jobsDir, jobId);
  }

  /**
   * The job's folder is made under a dot name (no job id: never listed) and renamed
   * into place once its files are written, so a reader never meets a job half
   * created, and a create that fails (a full disk) leaves nothing behind.
   */
  async create(kind: JobKind, request: JobRequest, initial: RecordHeader): Promise<StoredJob> {
    const jobId = randomUUID();
    const building = path.join(this.jobsDir, `.creating-${jobId}`);
    const meta: JobMeta = {
      jobId,
      kind,
      createdAt: new Date().toISOString(),
      url: requestUrl(request),
      request,
      owner: await this.self(),
    };
    const record = { ...initial, jobId } as RecordHeader;
    try {
      await fs.mkdir(building, { recursive: true });
      await writeJsonAtomic(path.join(building, 'meta.json'), meta);
      await this.writeRecord({ meta, record }, building);
      await fs.rename(building, this.dir(jobId));
    } catch (err) {
      await fs.rm(building, { recursive: true, force: true }).catch(() => undefined);
      throw writeError(err, path.join(this.dir(jobId), 'job.json'));
    }
    return { meta, record };
  }

  /**
   * One of a job's files, parsed; DamagedRecordError when it is not what we wrote,
   * when it is missing from a job's folder, or when the job's "folder" is a file.
   * JobNotFoundError when there is no such job.
   */
  private async readFile<T>(jobId: string, name: JobFile): Promise<T> {
    await this.ownFolder(jobId);
    let value: unknown;
    try {
      value = await readJson<unknown>(path.join(this.dir(jobId), name));
    } catch (err) {
      if (err instanceof SyntaxError) throw DamagedRecordError.ofFile(jobId, name);
      throw await this.unreadable(jobId, name, err);
    }
    if (!SHAPES[name](value)) throw DamagedRecordError.ofFile(jobId, name);
    return value as T;
  }

  /**
   * Refuses a job whose folder was replaced by a symbolic link (DamagedRecordError): the store neither
   * reads through it nor writes into its target (a lock file, a record). No folder at all is left to the caller.
   */
  private async ownFolder(jobId: string): Promise<void> {
    const stat = await fs.lstat(this.dir(jobId)).catch(() => undefined);
    if (stat?.isSymbolicLink()) throw DamagedRecordError.symlinked(jobId);
  }

  /** Why a file of the job could not be opened: no job, a damaged one, or the error as it came. */
  private async unreadable(jobId: string, name: string, err: unknown): Promise<unknown> {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return DamagedRecordError.notAFolder(jobId);
    if (code !== 'ENOENT') return err;
    const stat = await fs.stat(this.dir(jobId)).catch(() => undefined);
    if (!stat) return new JobNotFoundError(jobId);
    return stat.isDirectory() ? DamagedRecordError.missing(jobId, name) : DamagedRecordError.notAFolder(jobId);
  }

  private async readRaw(jobId: string): Promise<StoredJob> {
    const [meta, record] = await Promise.all([this.readFile<JobMeta>(jobId, 'meta.json'), this.readFile<RecordHeader>(jobId, 'job.json')]);
    return { meta, record };
  }

  async read(jobId: string): Promise<StoredJob> {
    const job = await this.readRaw(jobId);
    await checkPages(job, this.dir(jobId), this.pageIndex);
    return (await this.ownerDied(headerOf(job))) ? this.failOrphan(jobId, job.meta.owner) : job;
  }

  async header(jobId: string): Promise<JobHeader> {
    const header = await this.storedHeader(jobId);
    return (await this.ownerDied(header)) ? headerOf(await this.failOrphan(jobId, header.owner)) : header;
  }

  async storedHeader(jobId: string): Promise<JobHeader> {
    const header = await this.readFile<JobHeader>(jobId, 'status.json').catch((err: unknown) => {
      // Jobs stored before status.json existed, and a damaged status.json, are read the long way.
      // (readRaw then says what is wrong with the job, if anything.)
      if (err instanceof DamagedRecordError) return undefined;
      throw err;
    });
    if (!header) return headerOf(await this.readRaw(jobId));
    // status.json is written last: with it, meta.json and the record are there too, unless they were lost since.
    for (const name of ['meta.json', 'job.json'] as const) {
      await fs.access(path.join(this.dir(jobId), name)).catch(async (err: unknown) => {
        throw await this.unreadable(jobId, name, err);
      });
    }
    return header;
  }

  /**
   * Fails the job of `dead`, unless another owner took it over meanwhile (a starting server).
   * When the store cannot be written (a full disk), the job is still reported failed, as it
   * is: the record says so once it can.
   */
  private async failOrphan(jobId: string, dead: JobMeta['owner']): Promise<StoredJob> {
    // The record counts a crawl's entries every so often: the dead run may have stored more than it says.
    const stored = await this.storedRun(jobId);
    const orphaned = (record: RecordHeader, meta: JobMeta) => {
      if (meta.owner.pid !== dead.pid || meta.owner.lease !== dead.lease) return;
      if (record.status === 'pending' || record.status === 'running') {
        if (meta.kind === 'crawl') countStored({ meta, record }, stored);
        record.status = 'failed';
        record.error = interruptedError(`the process that ran this job (pid ${meta.owner.pid}) exited before the job finished`, meta.kind, jobId);
        meta.interrupted = true;
      }
    };
    try {
      return await this.update(jobId, orphaned);
    } catch (err) {
      if (!(err instanceof StoreFullError)) throw err;
      const job = await this.readRaw(jobId);
      orphaned(job.record, job.meta);
      return job;
    }
  }

  /** How many of the job's entries are stored one after another from the first (a crawl's run appends them so). */
  private async storedRun(jobId: string): Promise<number> {
    const { spans } = await this.pageIndex.index(this.dir(jobId));
    let count = 0;
    while (spans.has(count)) count++;
    return count;
  }

  /**
   * A job that will never move on: running under an owner that is gone, or
   * pending under a bare process that is gone (a detached worker that never
   * began). Pending jobs of a lease wait for the next server, which resumes them.
   */
  private async ownerDied({ status, owner }: JobHeader): Promise<boolean> {
    if (status !== 'running' && !(status === 'pending' && owner.lease === undefined)) return false;
    return !(await this.leases.isAlive(owner));
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
    return this.serialise(jobId, async () => {
      await this.ownFolder(jobId);
      return withFileLock(path.join(this.dir(jobId), 'job.lock'), async () => {
        const job = await this.readRaw(jobId);
        const before = JSON.stringify(job.meta);
        change(job.record, job.meta);
        if (JSON.stringify(job.meta) !== before) await writeJsonAtomic(path.join(this.dir(jobId), 'meta.json'), job.meta);
        await this.writeRecord(job);
        return job;
      });
    });
  }

  /** job.json, then its header: a reader of the header never sees a state the record does not have yet. */
  private async writeRecord(job: StoredJob, dir = this.dir(job.meta.jobId)): Promise<void> {
    await writeJsonAtomic(path.join(dir, 'job.json'), job.record);
    await writeJsonAtomic(path.join(dir, 'status.json'), headerOf(job));
  }

  async setOwner(jobId: string, pid: number): Promise<void> {
    await this.update(jobId, (_record, meta) => {
      meta.owner = { pid, host: os.hostname() };
    });
  }

  /** Entry `index` of a job stored by an older version, in a file of its own. */
  private pageFile(jobId: string, index: number): string {
    return path.join(this.dir(jobId), 'pages', `${String(index).padStart(PAGE_NAME_WIDTH, '0')}.json`);
  }

  putPage(jobId: string, index: number, entry: PageEntry): Promise<void> {
    return this.pageLog.append(this.dir(jobId), index, entry);
  }

  appendJournal(jobId: string, lines: readonly unknown[]): Promise<void> {
    return appendLines(path.join(this.dir(jobId), 'journal.jsonl'), lines);
  }

  readJournal(jobId: string): Promise<unknown[]> {
    return readLines(path.join(this.dir(jobId), 'journal.jsonl'));
  }

  /**
   * Where entries [start, start+count) are in pages.jsonl, and, when the job has a pages/ folder (stored by
   * an older version), the indexes of those pages.idx lacks, to read from there.
   */
  private async spans(jobId: string, start: number, count: number): Promise<{ spans: (Span | undefined)[]; filed: number[] }> {
    const index = await this.pageIndex.spans(this.dir(jobId));
    const spans = Array.from({ length: Math.max(0, count) }, (_, i) => index.get(start + i));
    const lacking = spans.flatMap((span, i) => (span ? [] : [start + i]));
    const legacy = lacking.length > 0 && (await fs.stat(path.join(this.dir(jobId), 'pages')).then((stat) => stat.isDirectory(), () => false));
    return { spans, filed: legacy ? lacking : [] };
  }

  async readPages(jobId: string, start: number, count: number): Promise<(PageEntry | undefined)[]> {
    const { spans, filed } = await this.spans(jobId, start, count);
    const [entries, files] = await Promise.all([readSpans(jobId, this.dir(jobId), spans), Promise.all(filed.map((i) => this.readPageFile(jobId, i)))]);
    filed.forEach((i, n) => (entries[i - start] = files[n]));
    return entries;
  }

  async pageSizes(jobId: string, start: number, count: number): Promise<(number | undefined)[]> {
    const index = await this.pageIndex.spans(this.dir(jobId));
    return Array.from({ length: Math.max(0, count) }, (_, i) => index.get(start + i)?.length);
  }

  /** From pages.idx's marks (pageLog.ts); undefined for a job of an older version (a pages/ folder, lines without marks). */
  async pageCounts(jobId: string, below: number): Promise<PageCounts | undefined> {
    const dir = this.dir(jobId);
    const legacy = await fs.stat(path.join(dir, 'pages')).then((stat) => stat.isDirectory(), () => false);
    return legacy ? undefined : this.pageIndex.counts(dir, below);
  }

  private readPageFile(jobId: string, i: number): Promise<PageEntry | undefined> {
    return readJson<PageEntry>(this.pageFile(jobId, i)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      if (err instanceof SyntaxError) throw DamagedPagesError.of(jobId, path.relative(this.dir(jobId), this.pageFile(jobId, i)), 'is not valid JSON');
      throw err;
    });
  }

  async pageTexts(jobId: string, start: number, count: number): Promise<(PageText | undefined)[]> {
    const { spans, filed } = await this.spans(jobId, start, count);
    const read = (i: number) => this.readPages(jobId, start + i, 1).then(([entry]) => entry!);
    const [texts, files] = await Promise.all([
      spanTexts(jobId, this.dir(jobId), spans, read),
      Promise.all(filed.map((i) => pageText(jobId, this.pageFile(jobId, i), () => read(i - start)))),
    ]);
    filed.forEach((i, n) => (texts[i - start] = files[n]));
    return texts;
  }

  /**
   * Mends a batch's or crawl's damaged entries (pageMend.ts) under the job's lock: those that cannot be read
   * are left out (`lost: 'missing'`, for a resumed job to redo) or stored as failed entries saying why
   * (`'failed'`, for a retry to run again).
   */
  mendPages(jobId: string, lost: 'missing' | 'failed'): Promise<Mended> {
    return this.serialise(jobId, async () => {
      await this.ownFolder(jobId);
      return withFileLock(path.join(this.dir(jobId), 'job.lock'), async () => {
        const job = await this.readRaw(jobId);
        const { kind, request } = job.meta;
        if (kind !== 'batch' && kind !== 'crawl') return { lost: [] };
        const standIn = lost === 'failed' ? lostEntries(kind, request, await this.readJournal(jobId)) : undefined;
        const mended = await mendLog(job, this.dir(jobId), standIn);
        await this.writeRecord(job);
        return mended;
      });
    });
  }

  async request(jobId: string): Promise<{ kind: JobKind; request: JobRequest }> {
    const { kind, request } = (await this.readRaw(jobId)).meta;
    return { kind, request };
  }

  async cancel(jobId: string): Promise<JobStatus> {
    const { record } = await this.update(jobId, (header) => {
      if (!isFinal(header.status)) header.status = 'stopped';
    });
    return record.status;
  }

  /**
   * Under the job's lock, so that no process is starting the job meanwhile. The
   * folder is first renamed out of the listing (a dot name is no job id), so that
   * nobody ever reads a job half deleted, then removed.
   */
  async remove(jobId: string): Promise<boolean> {
    const dir = this.dir(jobId);
    const gone = path.join(this.jobsDir, `.removing-${jobId}-${randomUUID()}`);
    const removed = await this.serialise(jobId, async () => {
      await this.ownFolder(jobId);
      return withFileLock(path.join(dir, 'job.lock'), async () => {
        const { record } = await this.readRaw(jobId);
        if (!isFinal(record.status)) return false;
        await fs.rename(dir, gone);
        return true;
      });
    });
    if (removed) await fs.rm(gone, { recursive: true, force: true });
    return removed;
  }

  async ids(): Promise<string[]> {
    const names = await fs.readdir(this.jobsDir).catch(() => [] as string[]);
    return names.filter((name) => JOB_ID_PATTERN.test(name));
  }

  async list(jobIds?: readonly string[]): Promise<(JobHeader | DamagedJob)[]> {
    const ids = jobIds?.filter((jobId) => JOB_ID_PATTERN.test(jobId)) ?? (await this.ids());
    const jobs = await Promise.all(ids.map((jobId) => this.listed(jobId)));
    return jobs
      .filter((job): job is JobHeader | DamagedJob => job !== undefined)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** A job's header; what is known of a damaged job; undefined for none. */
  private async listed(jobId: string): Promise<JobHeader | DamagedJob | undefined> {
    try {
      return await this.header(jobId);
    } catch (err) {
      if (!(err instanceof DamagedRecordError)) return undefined;
      const meta = await this.readFile<JobMeta>(jobId, 'meta.json').catch(() => undefined);
      const createdAt = meta?.createdAt ?? (await fs.stat(this.dir(jobId)).catch(() => undefined))?.birthtime.toISOString() ?? '';
      return { jobId, damaged: err.message, createdAt, ...(meta ? { kind: meta.kind, url: meta.url } : {}) };
    }
  }
}
