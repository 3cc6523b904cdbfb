/**
 * `webjobs serve` against requests meant to stop it or to hurt another key:
 * hostile crawl patterns, damaged job records, large records, and the smaller
 * holes of issue 10. Real server, real CLI, real Chromium where a page loads.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { FORMATS } from '../src/api/types.js';

const KEYS = { a: 'key-a-0123456789', b: 'key-b-0123456789' };
const home = tempHome();

let site: FixtureServer;
let server: ServeProcess;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function api(method: string, pathname: string, options: { key?: string; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': options.key ?? KEYS.a };
  const payload = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${pathname}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

function startServer(): Promise<ServeProcess> {
  return startServe({
    args: ['--allow-host', new URL(site.url).host, '--max-jobs-per-key', '2', '--quiet'],
    env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEYS.a}:scale,${KEYS.b}:scale` },
  });
}

/** The id `serve` files a key's jobs under: the first 12 hex digits of its SHA-256. */
const keyId = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** Jobs written straight into WEBJOBS_HOME before the server starts, as a crash or a full disk leaves them. */
const stored = {
  /** job.json cut short, no status.json (as every job stored before status.json existed). */
  damaged: randomUUID(),
  /** A 20 MB record whose last bytes are lost; its status.json is intact. */
  large: randomUUID(),
  /** A sound, completed crawl. */
  crawl: randomUUID(),
  /** Key b's; its owners.jsonl line is the torn last one. */
  torn: randomUUID(),
};

async function writeJob(jobId: string, kind: string, files: Record<string, string>): Promise<void> {
  const dir = path.join(home, 'jobs', jobId);
  await fs.mkdir(path.join(dir, 'pages'), { recursive: true });
  const meta = { jobId, kind, createdAt: new Date().toISOString(), url: site.at('/start'), request: { url: site.at('/start') }, owner: { pid: 1, host: os.hostname() } };
  await fs.writeFile(path.join(dir, 'meta.json'), JSON.stringify(meta));
  for (const [name, content] of Object.entries(files)) await fs.writeFile(path.join(dir, name), content);
}

async function seedHome(): Promise<void> {
  const record = (jobId: string, extra: object = {}) => JSON.stringify({ jobId, status: 'completed', ...extra }, null, 2);
  await writeJob(stored.damaged, 'scrape', { 'job.json': record(stored.damaged).slice(0, 30) });
  const big = record(stored.large, { data: { markdown: 'x'.repeat(20 * 1000 * 1000), metadata: { title: 'Big' } } });
  const header = { jobId: stored.large, kind: 'scrape', status: 'completed', createdAt: new Date().toISOString(), url: site.at('/start'), owner: { pid: 1, host: os.hostname() } };
  await writeJob(stored.large, 'scrape', { 'job.json': big.slice(0, -10), 'status.json': JSON.stringify(header) });
  await writeJob(stored.crawl, 'crawl', { 'job.json': record(stored.crawl, { totalCrawledPages: 0, totalPageBatches: 1, currentPageBatch: 1, batchSize: 100 }) });
  await writeJob(stored.torn, 'scrape', { 'job.json': record(stored.torn) });
  const line = (jobId: string, key: string) => JSON.stringify({ jobId, key: keyId(key) });
  const lines = [line(stored.damaged, KEYS.a), line(stored.large, KEYS.a), line(stored.crawl, KEYS.a), line(stored.torn, KEYS.b)];
  // A crash mid-append: the last line lost its end.
  await fs.mkdir(path.join(home, 'server'), { recursive: true });
  await fs.writeFile(path.join(home, 'server', 'owners.jsonl'), `${lines.join('\n')}\n${line(randomUUID(), KEYS.b).slice(0, 25)}`);
}

beforeAll(async () => {
  const long = (n: number) => `/${'a'.repeat(n)}`;
  site = await startFixtureServer({
    '/start': (_req, res) =>
      sendHtml(res, html(`<article><h1>Start</h1>${articleText('start')}<a href="${long(40)}">40</a><a href="${long(60)}">60</a></article>`)),
    '/hang': () => new Promise(() => undefined),
  });
  await seedHome();
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

async function waitFinal(pathname: string, key = KEYS.a, during?: () => Promise<void>): Promise<string> {
  for (;;) {
    await during?.();
    const { body } = await api('GET', `${pathname}/status`, { key });
    if (['completed', 'failed', 'stopped'].includes(body.status)) return body.status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('one request must not stop the service', () => {
  it('crawls with backtracking-prone include patterns to the end while /healthz keeps answering', async () => {
    const { status, body } = await api('POST', '/api/crawl', {
      body: { url: site.at('/start'), ignoreSitemap: true, includePatterns: ['**'.repeat(12) + 'x', '*a'.repeat(12) + 'b'] },
    });
    expect(status).toBe(200);
    const health = async () => {
      const answer = await fetch(`${server.url}/healthz`);
      expect(answer.status).toBe(200);
    };
    expect(await waitFinal(`/api/crawl/${body.jobId}`, KEYS.a, health)).toBe('completed');
    const result = await api('GET', `/api/crawl/${body.jobId}`);
    // Neither long path ends in x or b: only the start page is in the result.
    expect(result.body.data.map((e: { url: string }) => e.url)).toEqual([site.at('/start')]);
  });

  it('refuses more than 20 patterns, or one over 100 characters, with 400 naming the limit', async () => {
    const many = await api('POST', '/api/crawl', { body: { url: site.at('/start'), excludePatterns: Array(21).fill('/x/*') } });
    expect(many).toMatchObject({ status: 400, body: { message: 'request.excludePatterns: 21 patterns given, the limit is 20' } });
    const long = await api('POST', '/api/crawl', { body: { url: site.at('/start'), includePatterns: ['/ok', `/${'*a'.repeat(50)}`] } });
    expect(long).toMatchObject({ status: 400, body: { message: 'request.includePatterns: pattern 2 has 101 characters, the limit is 100' } });
  });
});

/** Every process below `pid`, from /proc (Linux). */
async function processTree(pid: number): Promise<number[]> {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const tid of await fs.readdir(`/proc/${tree[i]}/task`).catch(() => [])) {
      const children = await fs.readFile(`/proc/${tree[i]}/task/${tid}/children`, 'utf8').catch(() => '');
      tree.push(...children.split(' ').filter(Boolean).map(Number));
    }
  }
  return tree.slice(1);
}

async function commandLine(pid: number): Promise<string> {
  return (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ').slice(0, 200);
}

/** A process's autogroup and its nice (`/autogroup-12 nice 10`), when the kernel schedules by autogroup. */
async function autogroup(pid: number): Promise<{ group: string; nice: number } | undefined> {
  const text = await fs.readFile(`/proc/${pid}/autogroup`, 'utf8').catch(() => undefined);
  const match = text && /^(\S+) nice (-?\d+)/.exec(text);
  return match ? { group: match[1]!, nice: Number(match[2]) } : undefined;
}

describe('serve --browser-nice', () => {
  it.runIf(process.platform === 'linux')('runs Chromium, its zygotes and renderers, at a lower priority than serve', async () => {
    const niced = await startServe({
      args: ['--allow-host', new URL(site.url).host, '--browser-nice', '10', '--quiet'],
      env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEYS.a}:scale` },
    });
    try {
      const start = await fetch(`${niced.url}/api/scrape`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.a, 'content-type': 'application/json' },
        // The browser, whose priority is measured: over HTTP no Chromium would start.
        body: JSON.stringify({ url: site.at('/hang'), scrapeOptions: { engine: 'browser' } }),
      });
      expect(start.status).toBe(200);
      // The browser starts with the job; wait for its priority to be lowered (its page may
      // load slowly then: a nice browser on a busy machine gets little CPU).
      const lowered = async (pid: number) => ((await autogroup(pid))?.nice ?? os.getPriority(pid)) >= 10;
      let browser: number[] = [];
      while (browser.length < 3 || !(await lowered(browser[0]!))) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        browser = await processTree(niced.child.pid!);
      }
      const own = await autogroup(niced.child.pid!);
      for (const pid of browser) {
        const group = await autogroup(pid);
        // Scheduled as a group apart from serve's, that group at nice 10 (where the kernel has autogroups) …
        if (group && own && group.group !== own.group) expect(group.nice - own.nice, `autogroup of ${pid}`).toBeGreaterThanOrEqual(10);
        // … and every thread at nice 10 or more, which holds where it has none (as root too: Chromium
        // would set its threads back to 0 and -8 itself).
        for (const tid of await fs.readdir(`/proc/${pid}/task`).catch(() => [])) {
          let nice: number;
          try {
            nice = os.getPriority(Number(tid));
          } catch {
            continue; // the thread has ended
          }
          expect(nice, `thread ${tid} of ${pid} (${await commandLine(pid)})`).toBeGreaterThanOrEqual(10);
        }
      }
    } finally {
      await niced.stop();
    }
  });

  it('refuses a nice outside 0..19 as a usage error', async () => {
    const result = await runCli(['serve', '--browser-nice', '20'], { env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEYS.a}:scale` } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--browser-nice');
  });
});

describe('damaged records', () => {
  it('answers 500 saying the record is damaged for that job only, and lists it with status unknown', async () => {
    for (const [method, suffix] of [['GET', '/status'], ['GET', ''], ['DELETE', '']] as const) {
      const answer = await api(method, `/api/scrape/${stored.damaged}${suffix}`);
      expect(answer.status, `${method} ${suffix}`).toBe(500);
      expect(answer.body.message).toBe(`the record of job ${stored.damaged} is damaged (job.json is not valid JSON); its state is unknown`);
    }
    const list = await api('GET', '/api/jobs');
    expect(list.status).toBe(200);
    expect(list.body.find((j: { jobId: string }) => j.jobId === stored.damaged)).toMatchObject({
      kind: 'scrape',
      status: 'unknown',
      error: expect.stringContaining('is damaged'),
    });
    expect(list.body.find((j: { jobId: string }) => j.jobId === stored.crawl)).toMatchObject({ kind: 'crawl', status: 'completed' });
  });

  it('the CLI prints one line saying the record is damaged and exits 8, for status and result, locally and with --remote', async () => {
    const remote = ['--remote', server.url, '--api-key', KEYS.a];
    for (const args of [['status'], ['result'], ['status', ...remote], ['result', ...remote]]) {
      const result = await runCli([args[0]!, stored.damaged, ...args.slice(1)], { env: { WEBJOBS_HOME: home } });
      expect(result.code, args.join(' ')).toBe(8);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`webjobs: the record of job ${stored.damaged} is damaged (job.json is not valid JSON); its state is unknown\n`);
    }
    const jobs = await runCli(['jobs'], { env: { WEBJOBS_HOME: home } });
    expect(jobs.code).toBe(0);
    expect(jobs.stdout).toMatch(new RegExp(`${stored.damaged}  scrape   unknown +\\S+  the record of job .* is damaged`));
  });

  it('a torn last line of owners.jsonl costs no other job, across a restart', async () => {
    const { body } = await api('POST', '/api/scrape', { key: KEYS.b, body: { url: site.at('/start') } });
    expect(await waitFinal(`/api/scrape/${body.jobId}`, KEYS.b)).toBe('completed');
    await server.stop();
    server = await startServer();
    expect(await api('GET', `/api/scrape/${body.jobId}/status`, { key: KEYS.b })).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(await api('GET', `/api/scrape/${stored.torn}/status`, { key: KEYS.b })).toMatchObject({ status: 200, body: { status: 'completed' } });
    const listed = (await api('GET', '/api/jobs', { key: KEYS.b })).body.map((j: { jobId: string }) => j.jobId);
    expect(listed).toEqual([stored.torn, body.jobId]);
  });
});

describe('status never reads the result', () => {
  it('answers the status of a 20 MB record from its header, even with the record cut short', async () => {
    expect(await api('GET', `/api/scrape/${stored.large}/status`)).toMatchObject({ status: 200, body: { status: 'completed' } });
    const list = await api('GET', '/api/jobs');
    expect(list.body.find((j: { jobId: string }) => j.jobId === stored.large)).toMatchObject({ status: 'completed' });
    // The result is the one answer that needs the record, and says it is damaged.
    expect(await api('GET', `/api/scrape/${stored.large}`)).toMatchObject({ status: 500, body: { message: expect.stringContaining('is damaged') } });
  });
});

describe('smaller holes', () => {
  it('answers 429 with Retry-After', async () => {
    // Short-lived, so that the server's job slots are free again for the tests after this one.
    const hang = { url: site.at('/hang'), scrapeOptions: { timeout: 3000 } };
    const started: string[] = [];
    let answer: Answer;
    // Key b may have 2 pending or running jobs; the third start is refused.
    for (;;) {
      answer = await api('POST', '/api/scrape', { key: KEYS.b, body: hang });
      if (answer.status !== 200) break;
      started.push(answer.body.jobId);
    }
    expect(started).toHaveLength(2);
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('5');
    for (const jobId of started) expect((await api('DELETE', `/api/scrape/${jobId}`, { key: KEYS.b })).status).toBe(200);
  });

  it("keeps a URL's user name and password out of records, listings and `webjobs jobs`", async () => {
    const secretUrl = (p: string) => site.at(p).replace('http://', 'http://alice:s3cr3t-pw@');
    const { body } = await api('POST', '/api/scrape/batch', {
      body: { urls: [secretUrl('/start'), secretUrl('/hang')], scrapeOptions: { timeout: 1000 } },
    });
    const base = `/api/scrape/batch/${body.jobId}`;
    expect(await waitFinal(base)).toBe('completed');
    const result = await api('GET', base);
    expect(result.body.data.map((e: { status: string }) => e.status)).toEqual(['completed', 'failed']);
    expect(result.body.data[1].url).toBe(site.at('/hang'));
    const list = await api('GET', '/api/jobs');
    const cli = await runCli(['jobs'], { env: { WEBJOBS_HOME: home } });
    expect(cli.code).toBe(0);
    const onDisk = await Promise.all(
      ['job.json', 'status.json', 'pages.jsonl', 'pages.idx'].map((f) => fs.readFile(path.join(home, 'jobs', body.jobId, f), 'utf8')),
    );
    for (const text of [JSON.stringify(result.body), JSON.stringify(list.body), cli.stdout, ...onDisk]) {
      expect(text).not.toContain('s3cr3t-pw');
      expect(text).not.toContain('alice');
    }
    expect(cli.stdout).toContain(`${body.jobId}  batch    completed`);
  });

  it('refuses "formats": [] with 400', async () => {
    expect(await api('POST', '/api/scrape', { body: { url: site.at('/start'), scrapeOptions: { formats: [] } } })).toMatchObject({
      status: 400,
      body: { message: `scrapeOptions.formats must name at least one format (${FORMATS.join(', ')}); leave it out for markdown` },
    });
  });

  it('reads page and batchSize in decimal digits only', async () => {
    const base = `/api/crawl/${stored.crawl}`;
    for (const query of ['page=0x10', 'page=1e1', 'batchSize=0b11', 'page=%207']) {
      expect(await api('GET', `${base}?${query}`), query).toMatchObject({ status: 400, body: { message: expect.stringMatching(/must be an integer from 1 to .*, in decimal digits/) } });
    }
    expect(await api('GET', `${base}?page=1&batchSize=10`)).toMatchObject({ status: 200, body: { currentPageBatch: 1, batchSize: 10 } });
  });

  it('refuses a "__proto__" key by name, wherever it is, not as invalid JSON', async () => {
    const top = await api('POST', '/api/scrape', { raw: `{"url":${JSON.stringify(site.at('/start'))},"__proto__":{"polluted":true}}` });
    expect(top).toMatchObject({ status: 400, body: { message: 'request: the key "__proto__" is not allowed' } });
    const nested = await api('POST', '/api/extract', {
      raw: `{"urls":[${JSON.stringify(site.at('/start'))}],"schema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}`,
    });
    expect(nested).toMatchObject({ status: 400, body: { message: 'request.schema.properties: the key "__proto__" is not allowed' } });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(await api('POST', '/api/scrape', { raw: '{"url": ' })).toMatchObject({ status: 400, body: { message: expect.stringContaining('not valid JSON') } });
  });
});
