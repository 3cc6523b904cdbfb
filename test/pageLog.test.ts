/**
 * A batch's or crawl's page entries on disk (store/pageLog.ts): appended to
 * pages.jsonl with an index line each in pages.idx; what a kill or a crash leaves
 * of them; and the entries of jobs stored by older versions, a file each in pages/.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedPagesError, DamagedRecordError } from '../src/api/errors.js';
import type { PageEntry } from '../src/api/types.js';
import { FileJobStore } from '../src/store/fileStore.js';
import { runCli, tempHome } from './helpers/cli.js';

const entry = (n: number, markdown = `# Page ${n}\n\nline one\nline "two"\n`): PageEntry =>
  ({ url: `https://a.example/${n}`, status: 'completed', error: null, metadata: { title: `Page ${n}` }, markdown }) as PageEntry;

async function crawlJob(status: 'running' | 'completed' = 'running') {
  const home = tempHome();
  const store = new FileJobStore(home);
  const { meta } = await store.create('crawl', { url: 'https://a.example/' }, { jobId: '', status } as never);
  return { home, store, jobId: meta.jobId, dir: path.join(home, 'jobs', meta.jobId) };
}

async function textOf(text: { open(): NodeJS.ReadableStream } | undefined): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of text!.open()) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

describe('page entries in pages.jsonl', () => {
  it('stores entries written side by side in one file, in few appends, and reads each back by index', async () => {
    const { store, jobId, dir } = await crawlJob();
    await Promise.all(Array.from({ length: 40 }, (_, n) => store.putPage(jobId, n, entry(n))));
    // No file per entry: the entries and where each is.
    expect(readdirSync(dir).sort()).toEqual(['job.json', 'meta.json', 'pages.idx', 'pages.jsonl', 'status.json']);
    const lines = readFileSync(path.join(dir, 'pages.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(40);
    // The entries handed in while an append was under way went in the next one: far fewer appends than entries.
    const appends = readFileSync(path.join(dir, 'pages.idx'), 'utf8').split('\n\n').length;
    expect(appends).toBeLessThan(10);
    expect(await store.readPages(jobId, 0, 41)).toEqual([...Array.from({ length: 40 }, (_, n) => entry(n)), undefined]);
    const texts = await store.pageTexts(jobId, 38, 3);
    expect(texts[2]).toBeUndefined();
    expect(texts[0]!.bytes).toBe(Buffer.byteLength(JSON.stringify(entry(38))));
    expect(JSON.parse(await textOf(texts[0]))).toEqual(entry(38));
    expect(await texts[1]!.read()).toEqual(entry(39));
  });

  it('joins at most 8 MB of entries into one append (an entry longer on its own)', async () => {
    const { store, jobId, dir } = await crawlJob();
    const big = (n: number, mb: number) => entry(n, String(n).repeat(mb * 1024 * 1024));
    const entries = [big(0, 3), big(1, 3), big(2, 3), big(3, 3), big(4, 9)];
    await Promise.all(entries.map((e, n) => store.putPage(jobId, n, e)));
    const appends = readFileSync(path.join(dir, 'pages.idx'), 'utf8')
      .split('\n\n')
      .map((lines) => lines.split('\n').filter(Boolean).map((line) => JSON.parse(line) as [number, number, number]));
    expect(appends.map((lines) => lines.map(([n]) => n))).toEqual([[0], [1, 2], [3], [4]]);
    expect(await store.readPages(jobId, 0, 5)).toEqual(entries);
  });

  it('an entry stored again is read as the later one', async () => {
    const { store, jobId } = await crawlJob();
    await store.putPage(jobId, 0, entry(0));
    await store.putPage(jobId, 0, entry(0, 'again'));
    expect((await store.readPages(jobId, 0, 1))[0]?.markdown).toBe('again');
    expect(JSON.parse(await textOf((await store.pageTexts(jobId, 0, 1))[0])).markdown).toBe('again');
  });

  it('what a kill or a crash leaves is a missing entry, and the entries stored after it are read', async () => {
    const { store, jobId, dir } = await crawlJob();
    await store.putPage(jobId, 0, entry(0));
    // Killed after the entry's bytes, before its index line: the entry was never stored.
    appendFileSync(path.join(dir, 'pages.jsonl'), JSON.stringify(entry(1)) + '\n');
    // Killed in the middle of the next append: a line cut short, and an index line cut short.
    appendFileSync(path.join(dir, 'pages.jsonl'), JSON.stringify(entry(2)).slice(0, 20));
    appendFileSync(path.join(dir, 'pages.idx'), '\n[2,100');
    expect(await store.readPages(jobId, 0, 4)).toEqual([entry(0), undefined, undefined, undefined]);
    expect((await store.pageTexts(jobId, 0, 4)).map((text) => text?.bytes)).toEqual([Buffer.byteLength(JSON.stringify(entry(0))), undefined, undefined, undefined]);
    // The resumed job stores them again, after what was cut short.
    await Promise.all([1, 2, 3].map((n) => store.putPage(jobId, n, entry(n))));
    expect(await store.readPages(jobId, 0, 4)).toEqual([0, 1, 2, 3].map((n) => entry(n)));
  });

  it('an index line whose bytes are not in pages.jsonl (a crash of the machine) is damage, which mending leaves out for the resumed job to redo', async () => {
    const { store, jobId, dir } = await crawlJob();
    await store.putPage(jobId, 0, entry(0));
    const size = readFileSync(path.join(dir, 'pages.jsonl')).length;
    appendFileSync(path.join(dir, 'pages.idx'), `\n[1,${size + 1000},50]\n`);
    await expect(store.readPages(jobId, 0, 2)).rejects.toThrow(/\(pages\.jsonl is cut short\)/);
    await expect(store.read(jobId)).rejects.toThrow(DamagedPagesError);
    expect(await store.mendPages(jobId, 'missing')).toEqual({ lost: [1] });
    expect(await store.readPages(jobId, 0, 2)).toEqual([entry(0), undefined]);
    await store.putPage(jobId, 1, entry(1));
    expect(await store.readPages(jobId, 0, 2)).toEqual([entry(0), entry(1)]);
    expect((await store.read(jobId)).record.status).toBe('running');
  });

  it('a store that read the entries reads those stored since by another (a process resuming the job), and a line only once it is whole', async () => {
    const { home, store, jobId, dir } = await crawlJob();
    await store.putPage(jobId, 0, entry(0));
    expect(await store.readPages(jobId, 0, 2)).toEqual([entry(0), undefined]);
    const other = new FileJobStore(home);
    await other.putPage(jobId, 1, entry(1));
    await other.putPage(jobId, 0, entry(0, 'again'));
    expect(await store.readPages(jobId, 0, 2)).toEqual([entry(0, 'again'), entry(1)]);
    // An index line being appended: not there until its end is.
    const size = readFileSync(path.join(dir, 'pages.jsonl')).length;
    appendFileSync(path.join(dir, 'pages.jsonl'), JSON.stringify(entry(2)) + '\n');
    appendFileSync(path.join(dir, 'pages.idx'), `\n[2,${size},`);
    expect((await store.readPages(jobId, 2, 1))[0]).toBeUndefined();
    appendFileSync(path.join(dir, 'pages.idx'), `${Buffer.byteLength(JSON.stringify(entry(2)))}]\n`);
    expect((await store.readPages(jobId, 2, 1))[0]).toEqual(entry(2));
  });

  it('entries whose pages.jsonl is gone are damaged', async () => {
    const { store, jobId, dir } = await crawlJob();
    await store.putPage(jobId, 0, entry(0));
    rmSync(path.join(dir, 'pages.jsonl'));
    await expect(store.readPages(jobId, 0, 1)).rejects.toThrow(/\(pages\.jsonl is missing\)/);
    await expect(store.pageTexts(jobId, 0, 1)).rejects.toThrow(/\(pages\.jsonl is missing\)/);
  });

  it('bytes that are not an entry are a damaged record', async () => {
    const { store, jobId, dir } = await crawlJob();
    await store.putPage(jobId, 0, entry(0));
    const log = path.join(dir, 'pages.jsonl');
    writeFileSync(log, readFileSync(log, 'utf8').replace('{"url"', 'x"url"'));
    await expect(store.readPages(jobId, 0, 1)).rejects.toThrow(DamagedRecordError);
    await expect(store.pageTexts(jobId, 0, 1)).rejects.toThrow(/pages\.jsonl is not valid JSON/);
  });
});

describe('page entries of a job stored by an older version (pages/NNNNNN.json)', () => {
  /** A crawl job as webjobs stored it before pages.jsonl: an indented file per entry. */
  async function olderJob(indexes: number[]) {
    const job = await crawlJob('completed');
    await job.store.update(job.jobId, (record) => Object.assign(record, { totalCrawledPages: Math.max(...indexes) + 1 }));
    mkdirSync(path.join(job.dir, 'pages'), { recursive: true });
    for (const n of indexes) writeFileSync(path.join(job.dir, 'pages', `${String(n).padStart(6, '0')}.json`), JSON.stringify(entry(n), null, 2) + '\n');
    return job;
  }

  it('are read as they were', async () => {
    const { store, jobId } = await olderJob([0, 2]);
    expect(await store.readPages(jobId, 0, 3)).toEqual([entry(0), undefined, entry(2)]);
    const texts = await store.pageTexts(jobId, 0, 3);
    expect(texts[1]).toBeUndefined();
    expect(JSON.parse(await textOf(texts[2]))).toEqual(entry(2));
  });

  it('one cut short is a damaged record, named by its file', async () => {
    const { store, jobId, dir } = await olderJob([0]);
    const file = path.join(dir, 'pages', '000000.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, -10));
    await expect(store.pageTexts(jobId, 0, 1)).rejects.toThrow(/pages\/000000\.json is not valid JSON/);
  });

  it('and with the entries a resumed run stores, which stand over those it stores again', async () => {
    const { store, jobId } = await olderJob([0, 2]);
    await store.putPage(jobId, 1, entry(1));
    await store.putPage(jobId, 2, entry(2, 'redone'));
    expect(await store.readPages(jobId, 0, 3)).toEqual([entry(0), entry(1), entry(2, 'redone')]);
    expect(JSON.parse(await textOf((await store.pageTexts(jobId, 2, 1))[0])).markdown).toBe('redone');
  });

  it('by `webjobs result`', async () => {
    const { home, jobId } = await olderJob([0, 1]);
    const result = await runCli(['result', jobId, '--json'], { env: { WEBJOBS_HOME: home } });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { data: PageEntry[] }).data).toEqual([entry(0), entry(1)]);
  });
});
