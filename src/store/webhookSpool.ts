/**
 * The file store's webhook spool: each delivery a job still owes is a file under the job's folder,
 * `webhooks/<seq>.json`, written when queued (and again when a retry is scheduled), removed once sent or dropped.
 * A serve that starts reads them back and sends them (jobs/webhooks/webhooks.ts). A job deleted meanwhile takes
 * its owed deliveries with it: a write never makes its folder again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Delivery, WebhookSpool } from '../jobs/webhooks/delivery.js';
import { readJson, writeJsonAtomic } from './atomicFile.js';

const SEQ_WIDTH = 20;

export class FileWebhookSpool implements WebhookSpool {
  private readonly jobsDir: string;

  constructor(home: string) {
    this.jobsDir = path.join(home, 'jobs');
  }

  private dir(jobId: string): string {
    return path.join(this.jobsDir, jobId, 'webhooks');
  }

  private file(delivery: Delivery): string {
    return path.join(this.dir(delivery.jobId), `${String(delivery.seq).padStart(SEQ_WIDTH, '0')}.json`);
  }

  async put(delivery: Delivery): Promise<void> {
    // Not recursive: the job's folder must exist (a deleted job's deliveries are not kept).
    await fs.mkdir(this.dir(delivery.jobId)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    await writeJsonAtomic(this.file(delivery), delivery);
  }

  async remove(delivery: Delivery): Promise<void> {
    await fs.rm(this.file(delivery), { force: true });
  }

  async owed(): Promise<Delivery[]> {
    const jobs = await fs.readdir(this.jobsDir).catch(() => [] as string[]);
    const owed: Delivery[] = [];
    for (const jobId of jobs) {
      if (jobId.startsWith('.')) continue;
      const names = await fs.readdir(this.dir(jobId)).catch(() => [] as string[]);
      for (const name of names.filter((n) => /^\d+\.json$/.test(n)).sort()) {
        // A file cut short by a crash is skipped, not a reason to send nothing.
        const delivery = await readJson<Delivery>(path.join(this.dir(jobId), name)).catch(() => undefined);
        if (delivery && delivery.jobId === jobId) owed.push(delivery);
      }
    }
    return owed;
  }
}
