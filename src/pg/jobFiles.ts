/**
 * The files of jobs (screenshots) on PostgreSQL: one row each beside the job,
 * deleted with it, written by whichever worker ran the page, served by any API
 * node. A record holds the file's path on serve, /api/files/{jobId}/{name},
 * which serve answers (and links to its own address) as on the file store.
 */
import { Readable } from 'node:stream';
import type pg from 'pg';
import { JOB_ID_PATTERN } from '../api/validate.js';
import { JOB_FILE_NAME, JOB_FILE_TYPES, type JobFile, type JobFileStore } from '../jobs/contracts.js';

const FILES_PATH = '/api/files';

export class PgJobFiles implements JobFileStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Stores the file (a retried page replaces what its earlier attempt stored) and returns its path on serve. */
  async put(jobId: string, kind: string, n: number | string, ext: string, bytes: Uint8Array): Promise<string> {
    const name = `${kind}-${n}.${ext}`;
    if (!JOB_ID_PATTERN.test(jobId) || !JOB_FILE_NAME.test(name)) throw new Error(`not a job file name: ${name}`);
    await this.pool.query(
      `INSERT INTO webjobs_job_files (job_id, name, bytes) VALUES ($1, $2, $3)
       ON CONFLICT (job_id, name) DO UPDATE SET bytes = excluded.bytes`,
      [jobId, name, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    );
    return `${FILES_PATH}/${jobId}/${name}`;
  }

  nameOf(stored: string): { jobId: string; name: string } | undefined {
    const [jobId = '', name = '', ...rest] = stored.startsWith(`${FILES_PATH}/`) ? stored.slice(FILES_PATH.length + 1).split('/') : [];
    return rest.length === 0 && JOB_ID_PATTERN.test(jobId) && JOB_FILE_NAME.test(name) ? { jobId, name } : undefined;
  }

  async read(jobId: string, name: string): Promise<JobFile | undefined> {
    if (!JOB_ID_PATTERN.test(jobId) || !JOB_FILE_NAME.test(name)) return undefined;
    const { rows } = await this.pool.query<{ bytes: Buffer }>('SELECT bytes FROM webjobs_job_files WHERE job_id = $1 AND name = $2', [jobId, name]);
    const bytes = rows[0]?.bytes;
    if (!bytes) return undefined;
    return { type: JOB_FILE_TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream', size: bytes.length, open: () => Readable.from([bytes]) };
  }
}
