/**
 * The job store: where job records live between the process that runs a job and
 * anyone who reads it. `FileJobStore` is the on-disk implementation.
 */
import type { JobKind, JobRecord, JobRequest, JobStatus, PageEntry } from '../api/types.js';

/** Bookkeeping kept beside the record, never part of what the API returns. */
export interface JobMeta {
  jobId: string;
  kind: JobKind;
  createdAt: string;
  /** The URL a user recognises the job by: the scrape/crawl URL, or the first of a list. */
  url: string;
  request: JobRequest;
  /** The process responsible for moving the job forward; when it is gone, the job is dead. */
  owner: { pid: number; host: string };
}

/** The record header: the GET result shape of the spec without the `data` of batch and crawl. */
export type RecordHeader = Omit<JobRecord, 'data'> & { status: JobStatus; data?: unknown };

export interface StoredJob {
  meta: JobMeta;
  record: RecordHeader;
}

export interface JobStore {
  create(kind: JobKind, request: JobRequest, initial: RecordHeader): Promise<StoredJob>;
  /** Throws JobNotFoundError. A job whose owner died is marked failed on read. */
  read(jobId: string): Promise<StoredJob>;
  /** Read-modify-write of the record header under the job's lock. */
  update(jobId: string, change: (record: RecordHeader, meta: JobMeta) => void): Promise<StoredJob>;
  setOwner(jobId: string, pid: number): Promise<void>;
  /** Stores page entry number `index` (0-based) of a batch or crawl. */
  putPage(jobId: string, index: number, entry: PageEntry): Promise<void>;
  /** Entries [start, start+count) that exist; missing ones come back as undefined. */
  readPages(jobId: string, start: number, count: number): Promise<(PageEntry | undefined)[]>;
  list(): Promise<StoredJob[]>;
  /** Every job id in the store, without reading (or judging) the jobs. */
  ids(): Promise<string[]>;
}
