/**
 * Files a job keeps beside its record (screenshots): `<home>/jobs/<jobId>/files/`,
 * so they go when the job is pruned. Names are made here, never taken from a
 * page or a request; `path()` refuses any other name, so a served name cannot
 * reach outside the folder.
 */
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { JOB_ID_PATTERN } from '../api/validate.js';
import { JOB_FILE_NAME, JOB_FILE_TYPES, type JobFile, type JobFileStore } from '../jobs/contracts.js';
import { writeError, writeStoreFile } from './atomicFile.js';

export class JobFiles implements JobFileStore {
  private readonly jobsDir: string;

  constructor(home: string) {
    this.jobsDir = path.join(home, 'jobs');
  }

  dir(jobId: string): string {
    return path.join(this.jobsDir, jobId, 'files');
  }

  /** The file `name` of a job, or undefined when the id or the name is none we make. */
  path(jobId: string, name: string): string | undefined {
    if (!JOB_ID_PATTERN.test(jobId) || !JOB_FILE_NAME.test(name)) return undefined;
    return path.join(this.dir(jobId), name);
  }

  /** The job and name of one of our files, from its path; undefined for any other path. */
  nameOf(file: string): { jobId: string; name: string } | undefined {
    const name = path.basename(file);
    const jobId = path.basename(path.dirname(path.dirname(file)));
    return this.path(jobId, name) === file ? { jobId, name } : undefined;
  }

  async read(jobId: string, name: string): Promise<JobFile | undefined> {
    const file = this.path(jobId, name);
    const size = file ? await fs.stat(file).then((stat) => stat.size, () => undefined) : undefined;
    if (!file || size === undefined) return undefined;
    return { type: JOB_FILE_TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream', size, open: () => createReadStream(file) };
  }

  /** Writes `bytes` as `<kind>-<n>.<ext>` and returns the file's path. */
  async put(jobId: string, kind: string, n: number | string, ext: string, bytes: Uint8Array): Promise<string> {
    const file = this.path(jobId, `${kind}-${n}.${ext}`);
    if (!file) throw new Error(`not a job file name: ${kind}-${n}.${ext}`);
    await fs.mkdir(path.dirname(file), { recursive: true }).catch((err: unknown) => {
      throw writeError(err, file);
    });
    await writeStoreFile(file, bytes);
    return file;
  }
}
