/**
 * Which API key started which job, so a key sees only its own jobs (others'
 * answer 404, as if they did not exist) and its active jobs can be counted.
 * Kept as one JSON line per job in <home>/server/owners.jsonl: appends are
 * cheap, and a restarted server knows every job's owner again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export class JobOwners {
  private readonly ownerOf = new Map<string, string>();
  private readonly jobsOf = new Map<string, string[]>();

  private constructor(private readonly file: string) {}

  static async open(home: string): Promise<JobOwners> {
    const owners = new JobOwners(path.join(home, 'server', 'owners.jsonl'));
    await fs.mkdir(path.dirname(owners.file), { recursive: true });
    const text = await fs.readFile(owners.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const { jobId, key } = JSON.parse(line) as { jobId: string; key: string };
        owners.remember(jobId, key);
      } catch {
        // A line cut short by a crash: that one job is lost to its key, the rest are fine.
      }
    }
    return owners;
  }

  private remember(jobId: string, key: string): void {
    this.ownerOf.set(jobId, key);
    const list = this.jobsOf.get(key) ?? [];
    list.push(jobId);
    this.jobsOf.set(key, list);
  }

  async add(jobId: string, key: string): Promise<void> {
    this.remember(jobId, key);
    await fs.appendFile(this.file, `${JSON.stringify({ jobId, key })}\n`);
  }

  owns(key: string, jobId: string): boolean {
    return this.ownerOf.get(jobId.toLowerCase()) === key;
  }

  jobs(key: string): readonly string[] {
    return this.jobsOf.get(key) ?? [];
  }

  has(jobId: string): boolean {
    return this.ownerOf.has(jobId);
  }
}
