import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const page = (title: string) => html(`<article><h1>${title}</h1>${articleText(title)}</article>`, { title });

let site: FixtureServer;
let refusedUrl: string;
const home = tempHome();
const env = { WEBJOBS_HOME: home };

/** The main Chromium process started by the CLI of this test file (its parent's WEBJOBS_HOME is ours). */
function killOurBrowser(): boolean {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = /\((.*)\)/.exec(stat)?.[1] ?? '';
      if (!/chrom/i.test(comm)) continue;
      const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!;
      const parentEnv = readFileSync(`/proc/${ppid}/environ`, 'utf8');
      if (!parentEnv.split('\0').includes(`WEBJOBS_HOME=${home}`)) continue;
      process.kill(Number(pid), 'SIGKILL');
      return true;
    } catch {
      /* the process ended while we looked */
    }
  }
  return false;
}

/** Whether a process descends from one whose environment has our WEBJOBS_HOME (renderers sit under Chromium's zygote). */
function startedByUs(pid: string): boolean {
  for (let current = pid, depth = 0; current !== '0' && current !== '1' && depth < 8; depth++) {
    const environ = readFileSync(`/proc/${current}/environ`, 'utf8');
    if (environ.split('\0').includes(`WEBJOBS_HOME=${home}`)) return true;
    const stat = readFileSync(`/proc/${current}/stat`, 'utf8');
    current = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!;
  }
  return false;
}

/**
 * Kills the renderer of the tab loading the page, leaving the browser and its other
 * renderers running. That renderer is the busiest of ours: Chromium keeps a spare,
 * idle renderer for the next tab, and killing it too would crash the next page as well.
 */
function killOurRenderers(): number {
  let busiest: { pid: number; cpu: number } | undefined;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('--type=renderer') || cmdline.includes('webui') || !startedByUs(pid)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime: fields 14 and 15 of /proc/PID/stat, 11 and 12 after the name.
      const cpu = Number(fields[11]) + Number(fields[12]);
      if (!busiest || cpu > busiest.cpu) busiest = { pid: Number(pid), cpu };
    } catch {
      /* the process ended while we looked */
    }
  }
  if (!busiest) return 0;
  process.kill(busiest.pid, 'SIGKILL');
  return 1;
}

let killed = false;
let renderersKilled = 0;

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': (_req, res) => sendHtml(res, page('Alpha page')),
    '/b': (_req, res) => sendHtml(res, page('Beta page')),
    '/c': (_req, res) => sendHtml(res, page('Gamma page')),
    '/missing': (_req, res) => sendHtml(res, page('Gone missing'), 404),
    '/broken': (_req, res) => sendHtml(res, page('Server broke'), 500),
    '/hang': () => undefined, // never answers
    '/old': (_req, res) => {
      res.writeHead(301, { location: '/new' });
      res.end();
    },
    '/new': (_req, res) => sendHtml(res, page('New home')),
    '/crash-tab': (_req, res) => sendHtml(res, html('<h1>About to crash</h1><script src="/crash-tab.js"></script>')),
    '/crash-tab.js': () => {
      // Asked for by the tab's renderer while it parses the page: kill it mid-page and never answer.
      renderersKilled = killOurRenderers();
    },
    '/kill-browser': (_req, res) => {
      killed = killOurBrowser();
      setTimeout(() => sendHtml(res, page('Too late')), 500);
    },
  });
  const closed = await startFixtureServer({});
  refusedUrl = closed.at('/nothing-listens');
  await closed.close();
});

afterAll(async () => {
  await site.close();
});

interface Entry {
  url: string;
  status: string;
  error: string | null;
  markdown?: string;
  metadata: Record<string, string>;
}

describe('webjobs batch', () => {
  it('keeps the submitted order with duplicates, and fails only the bad pages', async () => {
    const urls = [site.at('/a'), site.at('/missing'), site.at('/broken'), refusedUrl, site.at('/hang'), site.at('/a'), site.at('/b')];
    const result = await runCli(['batch', ...urls, '--timeout', '1500', '--json'], { env });
    expect(result.code, result.stderr).toBe(3);
    const record = JSON.parse(result.stdout) as { status: string; totalScrapedPages: number; data: Entry[] };
    expect(record.status).toBe('completed');
    expect(record.totalScrapedPages).toBe(urls.length);
    expect(record.data.map((e) => e.url)).toEqual(urls);
    const [a, missing, broken, refused, hang, again, b] = record.data as [Entry, Entry, Entry, Entry, Entry, Entry, Entry];
    expect(a).toMatchObject({ status: 'completed', error: null });
    expect(a.markdown).toContain('Paragraph 1 about Alpha page');
    expect(again.markdown).toBe(a.markdown);
    expect(b.markdown).toContain('Beta page');
    expect(missing).toMatchObject({ status: 'completed', error: null, metadata: { statusCode: '404' } });
    expect(broken).toMatchObject({ status: 'completed', error: null, metadata: { statusCode: '500' } });
    expect(refused.status).toBe('failed');
    expect(refused.error).toMatch(/refused/);
    expect(hang.status).toBe('failed');
    expect(hang.error).toMatch(/timed out/);
  });

  it('records the final URL of a redirect', async () => {
    const result = await runCli(['batch', site.at('/old'), '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const entry = (JSON.parse(result.stdout) as { data: Entry[] }).data[0]!;
    expect(entry.url).toBe(site.at('/old'));
    expect(entry.metadata.url).toBe(site.at('/new'));
    expect(entry.markdown).toContain('New home');
  });

  it('refuses more than 1,000 URLs before any request', async () => {
    const before = site.requests.length;
    const input = Array.from({ length: 1001 }, (_, i) => site.at(`/a?n=${i}`)).join('\n');
    const result = await runCli(['batch', '-'], { env, input });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/1001 URLs given; a batch takes at most 1,000/);
    expect(site.requests.length).toBe(before);
  });

  it('rejects invalid URLs with their line numbers and runs nothing', async () => {
    const file = path.join(home, 'urls.txt');
    writeFileSync(file, `# my pages\n${site.at('/a')}\n\nnot a url\n${site.at('/b')}\nftp://example.com/file\n`);
    const before = site.requests.length;
    const result = await runCli(['batch', '--file', file], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/line 4: "not a url" is not a valid URL/);
    expect(result.stderr).toMatch(/line 6: "ftp:\/\/example.com\/file" must use http or https/);
    expect(result.stderr).not.toMatch(/line 2|line 5/);
    expect(site.requests.length).toBe(before);
  });

  it('reads URLs from stdin, skipping comments, and writes JSON Lines as pages finish', async () => {
    const input = `# comment\n${site.at('/a')}\n\n   ${site.at('/b')}   \n`;
    const result = await runCli(['batch', '-', '--jsonl'], { env, input });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Entry);
    expect(lines.map((e) => e.url).sort()).toEqual([site.at('/a'), site.at('/b')]);
    expect(lines.every((e) => e.status === 'completed')).toBe(true);
  });

  it('prints markdown with a header per page by default', async () => {
    const result = await runCli(['batch', site.at('/a'), site.at('/b')], { env });
    expect(result.code, result.stderr).toBe(0);
    const first = result.stdout.indexOf(`==> [1/2] ${site.at('/a')} <==`);
    const second = result.stdout.indexOf(`==> [2/2] ${site.at('/b')} <==`);
    expect(first).toBe(0);
    expect(second).toBeGreaterThan(result.stdout.indexOf('Alpha page'));
    expect(result.stdout.slice(second)).toContain('Beta page');
  });

  it('writes one file per page and an index with --output-dir', async () => {
    const dir = path.join(home, 'out');
    const result = await runCli(['batch', site.at('/a'), site.at('/a'), refusedUrl, '--output-dir', dir, '--timeout', '3000'], { env });
    expect(result.code).toBe(3);
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')) as { pages: { file: string | null; url: string; status: string }[] };
    expect(index.pages.map((p) => p.status)).toEqual(['completed', 'completed', 'failed']);
    const [first, second] = index.pages as [{ file: string }, { file: string }];
    expect(first.file).not.toBe(second.file);
    expect(readFileSync(path.join(dir, first.file), 'utf8')).toContain('Alpha page');
    expect(readFileSync(path.join(dir, second.file), 'utf8')).toContain('Alpha page');
  });

  it('fails only the page whose tab crashed, and goes on in a fresh tab', async () => {
    renderersKilled = 0;
    const urls = [site.at('/a'), site.at('/crash-tab'), site.at('/b'), site.at('/c')];
    // A long page timeout: the crash must end the page at once, not when the timeout runs out.
    const { code, stdout } = await runCli(['batch', ...urls, '--json', '--concurrency', '1', '--timeout', '120000', '--engine', 'browser'], { env });
    expect(renderersKilled).toBeGreaterThan(0);
    expect(code).toBe(3);
    const record = JSON.parse(stdout);
    expect(record.data.map((e: { status: string }) => e.status)).toEqual(['completed', 'failed', 'completed', 'completed']);
    expect(record.data[1].error).toMatch(/crash/i);
    expect(record.data[3].markdown).toContain('Gamma page');
  });

  it('goes on with a fresh browser when the browser is killed mid-batch', async () => {
    killed = false;
    const urls = [site.at('/a'), site.at('/kill-browser'), site.at('/b'), site.at('/c'), site.at('/a')];
    const result = await runCli(['batch', ...urls, '--concurrency', '1', '--timeout', '5000', '--json', '--engine', 'browser'], { env });
    expect(killed).toBe(true);
    const record = JSON.parse(result.stdout) as { status: string; data: Entry[] };
    expect(record.status).toBe('completed');
    expect(record.data.map((e) => e.status)).toEqual(['completed', 'failed', 'completed', 'completed', 'completed']);
    expect(record.data[3]!.markdown).toContain('Gamma page');
    expect(result.code).toBe(3);
  });

  it('reads a stored batch back by result batch', async () => {
    const result = await runCli(['batch', site.at('/a'), site.at('/b'), site.at('/c'), '--no-wait'], { env });
    expect(result.code, result.stderr).toBe(0);
    const jobId = result.stdout.trim();
    for (let i = 0; i < 100; i++) {
      const status = await runCli(['status', jobId], { env });
      if (status.stdout.trim() === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const second = JSON.parse((await runCli(['result', jobId, '--page', '2', '--batch-size', '2'], { env })).stdout) as {
      totalPageBatches: number;
      currentPageBatch: number;
      data: Entry[];
    };
    expect(second.totalPageBatches).toBe(2);
    expect(second.currentPageBatch).toBe(2);
    expect(second.data.map((e) => e.url)).toEqual([site.at('/c')]);
  });
});
