/**
 * The owned job store (OwnedJobStore): where job records live between the process
 * that runs a job and anyone who reads it. `FileJobStore` is the on-disk implementation.
 */
import { WrongKindError } from '../api/errors.js';
import type { JobKind, JobRecord, JobRequest, JobStatus, PageEntry } from '../api/types.js';
import type { PageCounts } from '../api/pageCounts.js';
import type { JobOwner } from './leases.js';

/** Bookkeeping kept beside the record, never part of what the API returns. */
export interface JobMeta {
  jobId: string;
  kind: JobKind;
  createdAt: string;
  /** The URL a user recognises the job by: the scrape/crawl URL, or the first of a list. */
  url: string;
  request: JobRequest;
  /** The process responsible for moving the job forward, by its lease (leases.ts); when it is gone, the job is dead. */
  owner: JobOwner;
  /** The job ended failed because its process went away (kill, crash, reboot, shutdown), not on its own: it may resume. */
  interrupted?: boolean;
  /** When the job last went on after a stop or an interruption (webjobs resume): it keeps what it stored before. */
  resumedAt?: string;
}

/** The record header: the GET result shape of the spec without the `data` of batch and crawl. */
export type RecordHeader = Omit<JobRecord, 'data'> & { status: JobStatus; data?: unknown };

/**
 * What status and listings need, kept small in its own file beside the record
 * so that neither ever reads (or parses) a large result.
 */
export interface JobHeader {
  jobId: string;
  kind: JobKind;
  status: JobStatus;
  createdAt: string;
  url: string;
  owner: JobMeta['owner'];
}

/** One stored page entry as JSON text: its length in bytes, and its bytes when asked for. */
export interface PageText {
  bytes: number;
  open(): NodeJS.ReadableStream;
  /** The entry parsed (for an answer that must change it). */
  read(): Promise<PageEntry>;
}

/** A listed job whose files cannot be read: what is known of it, and why its state is not. */
export interface DamagedJob {
  jobId: string;
  damaged: string;
  kind?: JobKind;
  createdAt: string;
  url?: string;
}

export interface StoredJob {
  meta: JobMeta;
  record: RecordHeader;
}

export function headerOf({ meta, record }: StoredJob): JobHeader {
  return { jobId: meta.jobId, kind: meta.kind, status: record.status, createdAt: meta.createdAt, url: meta.url, owner: meta.owner };
}

/** A job's header, on either store, refused with WrongKindError when the job is not of `kind` (a batch's id asked as a crawl's). */
export function ofKind<H extends Pick<JobHeader, 'jobId' | 'kind'>>(header: H, kind?: JobKind): H {
  if (kind && header.kind !== kind) throw new WrongKindError(header.jobId, header.kind, kind);
  return header;
}

/**
 * A store whose jobs are run by the process that owns them (the file store: FileJobStore, and HeaderCache in
 * front of it): the job records, their pages put by index, a crawl's journal, and the owner leases (leases.ts)
 * that tell a live owner from a dead one. PostgreSQL hands out work page by page instead (pg/workStore.ts); what
 * both stores answer alike is checked by the contract suite (test/helpers/remoteSuite.ts), not by a type.
 */
export interface OwnedJobStore {
  /** What the job was started with. Throws JobNotFoundError. */
  request(jobId: string): Promise<{ kind: JobKind; request: JobRequest }>;
  /**
   * Marks a pending or running job stopped (a final one keeps its status) and returns its status; the process
   * that runs it learns of it by reading the header, and stops.
   */
  cancel(jobId: string): Promise<JobStatus>;
  create(kind: JobKind, request: JobRequest, initial: RecordHeader): Promise<StoredJob>;
  /** Throws JobNotFoundError, or DamagedRecordError for a record that cannot be read. A job whose owner died is marked failed on read. */
  read(jobId: string): Promise<StoredJob>;
  /** The job's header alone, never its record's data; the same errors and dead-owner check as read(). */
  header(jobId: string): Promise<JobHeader>;
  /** The header as stored, without the dead-owner check (for recovery, which judges orphans itself). */
  storedHeader(jobId: string): Promise<JobHeader>;
  /** Read-modify-write of the record header under the job's lock. */
  update(jobId: string, change: (record: RecordHeader, meta: JobMeta) => void): Promise<StoredJob>;
  setOwner(jobId: string, pid: number): Promise<void>;
  /** Stores page entry number `index` (0-based) of a batch or crawl. */
  putPage(jobId: string, index: number, entry: PageEntry): Promise<void>;
  /** Appends lines to the job's journal (a crawl's frontier as it grows), for a resume to read back. */
  appendJournal(jobId: string, lines: readonly unknown[]): Promise<void>;
  /** The journal's lines in the order written; none for a job without one. */
  readJournal(jobId: string): Promise<unknown[]>;
  /** Entries [start, start+count) that exist; missing ones come back as undefined. */
  readPages(jobId: string, start: number, count: number): Promise<(PageEntry | undefined)[]>;
  /**
   * Entries [start, start+count) as the JSON text they are stored as, unread: each one's
   * size, and a stream of its bytes to copy into an answer; missing ones undefined.
   * For stores that keep entries as files (serve streams them, never parsing a large one).
   */
  pageTexts?(jobId: string, start: number, count: number): Promise<(PageText | undefined)[]>;
  /**
   * The stored size in bytes of entries [start, start+count), from the store's index without reading them (undefined
   * where it is not known): a reader takes several small entries in one readPages, a large one alone.
   */
  pageSizes?(jobId: string, start: number, count: number): Promise<(number | undefined)[]>;
  /**
   * Entries [0, below) counted by what they are (completed, failed, changed) from the store's index, without
   * reading them; undefined when the index cannot say for some of them (stored by an older version): read them.
   */
  pageCounts?(jobId: string, below: number): Promise<PageCounts | undefined>;
  /**
   * Mends a batch's or crawl's entries that cannot be read (DamagedPagesError): they are left out (`'missing'`:
   * a resumed job redoes them) or stored as failed entries saying they were lost (`'failed'`: a retry runs them
   * again); the indexes lost. For stores that can be damaged so (the file store).
   */
  mendPages?(jobId: string, lost: 'missing' | 'failed'): Promise<{ lost: number[] }>;
  /** Headers of the given jobs (default: all), oldest first; unknown ids are left out, damaged jobs listed as such. */
  list(jobIds?: readonly string[]): Promise<(JobHeader | DamagedJob)[]>;
  /** Deletes a job whose stored status is final, with its pages; false (nothing deleted) for one that is not. */
  remove(jobId: string): Promise<boolean>;
  /** Every job id in the store, without reading (or judging) the jobs. */
  ids(): Promise<string[]>;
  /** This process as the owner of the jobs it creates or takes, holding a lease renewed until close(). */
  self(): Promise<JobOwner>;
  /** Whether a job's owner still holds its lease (a record older than leases: whether its process lives). */
  ownerAlive(owner: JobOwner): Promise<boolean>;
  /** Gives up this process's lease: the jobs it leaves pending are free to take over at once. */
  close(): Promise<void>;
}
