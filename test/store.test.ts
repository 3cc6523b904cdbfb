/** The on-disk job store: record shape, atomic writes, several processes, dead owners. */
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JobNotFoundError } from '../src/api/errors.js';
import { FileJobStore } from '../src/store/fileStore.js';
import type { RecordHeader } from '../src/jobs/jobStore.js';
import { tempHome } from './helpers/cli.js';

const DIST_STORE = fileURLToPath(new URL('../dist/store/fileStore.js', import.meta.url));

function runNode(script: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

describe('FileJobStore', () => {
  it('keeps job.json in the exact shape of the result endpoint', async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const { meta } = await store.create('scrape', { url: 'https://example.com/' }, { jobId: '', status: 'pending' });
    expect(meta.jobId).toMatch(/^[0-9a-f-]{36}$/);
    await store.update(meta.jobId, (record) => {
      record.status = 'completed';
      (record as { data?: unknown }).data = { metadata: { title: 't', description: '' }, markdown: '# t' };
    });
    const onDisk = JSON.parse(readFileSync(path.join(home, 'jobs', meta.jobId, 'job.json'), 'utf8'));
    expect(onDisk).toEqual({ jobId: meta.jobId, status: 'completed', data: { metadata: { title: 't', description: '' }, markdown: '# t' } });
  });

  it("a crawl's journal cut short by a crash keeps every line appended after it (a second resume reads them all)", async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const { meta } = await store.create('crawl', { url: 'https://example.com/' }, { jobId: '', status: 'running' });
    await store.appendJournal(meta.jobId, [{ q: ['https://example.com/a'] }]);
    // A kill -9 in the middle of an append: the last line is cut short, with no end of line.
    appendFileSync(path.join(home, 'jobs', meta.jobId, 'journal.jsonl'), '{"q":["https://example.com/b');
    expect(await store.readJournal(meta.jobId)).toEqual([{ q: ['https://example.com/a'] }]);
    // The resumed run appends on.
    await store.appendJournal(meta.jobId, [{ q: ['https://example.com/c'] }, { p: [1, 'https://example.com/c'] }]);
    expect(await store.readJournal(meta.jobId)).toEqual([{ q: ['https://example.com/a'] }, { q: ['https://example.com/c'] }, { p: [1, 'https://example.com/c'] }]);
  });

  it('throws JobNotFoundError for an unknown id', async () => {
    const store = new FileJobStore(tempHome());
    await expect(store.read('3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d')).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('loses no update when several processes change one record at once', async () => {
    const home = tempHome();
    const store = new FileJobStore(home);
    const running: RecordHeader & { totalCrawledPages: number } = { jobId: '', status: 'running', totalCrawledPages: 0 };
    const { meta } = await store.create('crawl', { url: 'https://example.com/' }, running);
    const increment = `
      import { FileJobStore } from ${JSON.stringify(DIST_STORE)};
      const store = new FileJobStore(${JSON.stringify(home)});
      await Promise.all(Array.from({ length: 25 }, () =>
        store.update(${JSON.stringify(meta.jobId)}, (r) => { r.totalCrawledPages += 1; })));`;
    const codes = await Promise.all([runNode(increment), runNode(increment), runNode(increment)]);
    expect(codes).toEqual([0, 0, 0]);
    // The record as written (read() would also judge the crawl's entries, of which this one has none).
    const record = JSON.parse(readFileSync(path.join(home, 'jobs', meta.jobId, 'job.json'), 'utf8')) as { totalCrawledPages: number };
    expect(record.totalCrawledPages).toBe(75);
    // No temporary or lock files are left behind.
    expect(readdirSync(path.join(home, 'jobs', meta.jobId)).sort()).toEqual(['job.json', 'meta.json', 'status.json']);
  });

  it('marks a running job failed when the process that ran it has died', async () => {
    const home = tempHome();
    const script = `
      import { FileJobStore } from ${JSON.stringify(DIST_STORE)};
      const store = new FileJobStore(${JSON.stringify(home)});
      const { meta } = await store.create('scrape', { url: 'https://example.com/' }, { jobId: '', status: 'running' });
      process.stdout.write(meta.jobId);
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
    let jobId = '';
    child.stdout.on('data', (d) => (jobId += d));
    await new Promise((resolve) => child.on('close', resolve));
    const { record } = await new FileJobStore(home).read(jobId);
    expect(record.status).toBe('failed');
    expect(record.error).toMatch(/interrupted: the process that ran this job \(pid \d+\) exited/);
  });

  it('returns result pages by index, undefined where none is stored yet', async () => {
    const store = new FileJobStore(tempHome());
    const { meta } = await store.create('batch', { urls: ['https://a.example/', 'https://b.example/'] }, { jobId: '', status: 'running' });
    await store.putPage(meta.jobId, 1, { url: 'https://b.example/', status: 'completed', error: null, metadata: {} });
    const pages = await store.readPages(meta.jobId, 0, 2);
    expect(pages[0]).toBeUndefined();
    expect(pages[1]?.url).toBe('https://b.example/');
  });
});
