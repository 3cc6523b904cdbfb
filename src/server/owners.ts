/**
 * Which API key started which job, so a key sees only its own jobs (others'
 * answer 404, as if they did not exist) and its active jobs can be counted.
 * Kept as one JSON line per job in <home>/server/owners.jsonl: appends are
 * cheap, and a restarted server knows every job's owner again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeError } from '../store/atomicFile.js';

interface OwnerLine {
  jobId: string;
  key: string;
}

function parseEntry(text: string): OwnerLine | undefined {
  try {
    const value = JSON.parse(text) as Partial<OwnerLine> | null;
    return typeof value?.jobId === 'string' && typeof value.key === 'string' ? { jobId: value.jobId, key: value.key } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One line of owners.jsonl. A line cut short by a crash loses that one job to
 * its key; a whole entry glued after it (written by a version that did not end
 * the torn line) is still read.
 */
function parseLine(line: string): OwnerLine | undefined {
  if (!line.trim()) return undefined;
  return parseEntry(line) ?? parseEntry(line.slice(line.lastIndexOf('{"jobId"')));
}

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
      const entry = parseLine(line);
      if (entry) owners.remember(entry.jobId, entry.key);
    }
    // A crash mid-append leaves a last line without its newline: end it, or the next
    // job's line would be glued to it and lost too.
    if (text !== '' && !text.endsWith('\n')) await fs.appendFile(owners.file, '\n');
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
    await fs.appendFile(this.file, `${JSON.stringify({ jobId, key })}\n`).catch((err: unknown) => {
      throw writeError(err, this.file);
    });
  }

  owns(key: string, jobId: string): boolean {
    return this.ownerOf.get(jobId.toLowerCase()) === key;
  }

  jobs(key: string): readonly string[] {
    return this.jobsOf.get(key) ?? [];
  }

  /** The key that started the job, if known. */
  keyOf(jobId: string): string | undefined {
    return this.ownerOf.get(jobId.toLowerCase());
  }

  has(jobId: string): boolean {
    return this.ownerOf.has(jobId);
  }
}
