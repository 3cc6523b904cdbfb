/**
 * Resume at any point of a large crawl (issue 59): a crawl of a 400-page site is
 * killed with SIGKILL twice, wherever it happens to be (many appends of pages.jsonl
 * and of the journal behind it, a frontier of hundreds of URLs, pages in flight),
 * and resumed each time; the job ends with every page within --max-depth exactly
 * once, the pages of each run kept in their places.
 *
 * The site: page n links to 4n+1 ... 4n+4 (so the crawl's frontier grows) and to
 * the first five pages (on every page, as navigation: met again and again). With
 * --max-depth 4 the crawl takes the 341 pages of depth 0 to 4 and leaves the
 * 59 of depth 5, which it finds: a resume that lost the depths of the URLs it
 * queued would crawl them. Pages in flight when the CLI is killed are asked for
 * again by the resumed run: what is checked is the job's entries, and that no
 * page was asked for more than twice.
 */
import { readdirSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { runCli, startCli, tempHome } from './helpers/cli.js';
import { storedEntries, until } from './helpers/resumeSite.js';

const PAGES = 400;
const FAN_OUT = 4;
/** Pages within --max-depth 4: 1 + 4 + 16 + 64 + 256. */
const WITHIN_DEPTH = 341;
const page = (n: number) => (n === 0 ? '/' : `/p/${n}`);

let site: FixtureServer;
const served = new Map<string, number>();
beforeAll(async () => {
  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {};
  for (let n = 0; n < PAGES; n++) {
    routes[page(n)] = (_req, res) => {
      served.set(page(n), (served.get(page(n)) ?? 0) + 1);
      const children = Array.from({ length: FAN_OUT }, (_, i) => FAN_OUT * n + 1 + i).filter((k) => k < PAGES);
      const links = [...children, 0, 1, 2, 3, 4].map((k) => `<a href="${page(k)}">page ${k}</a>`).join(' ');
      sendHtml(res, html(`<article><h1>Page ${n}</h1><p>The text of page ${n}, long enough to be its content.</p><p>${links}</p></article>`, { title: `Page ${n}` }));
    };
  }
  site = await startFixtureServer(routes);
});
afterAll(async () => {
  await site?.close();
});

function jobDirOf(home: string): string | undefined {
  try {
    const [id] = readdirSync(path.join(home, 'jobs')).filter((name) => !name.startsWith('.'));
    return id && path.join(home, 'jobs', id);
  } catch {
    return undefined;
  }
}

describe('resume of a large crawl', () => {
  it('killed twice at any point, a crawl of 341 pages ends with every page once, at its depth', { timeout: 240_000 }, async () => {
    const home = tempHome();
    const env = { WEBJOBS_HOME: home };
    const cli = startCli(['crawl', site.at('/'), '--max-pages', String(PAGES), '--max-depth', '4', '--ignore-sitemap', '--engine', 'http', '-q'], { env });
    let stored = 0;
    await until(
      async () => {
        const dir = jobDirOf(home);
        stored = dir ? await storedEntries(dir) : 0;
        return stored >= 100 || cli.child.exitCode !== null;
      },
      () => `${stored} pages stored`,
      120_000,
    );
    cli.child.kill('SIGKILL');
    await cli.done;
    const jobDir = jobDirOf(home)!;
    const jobId = path.basename(jobDir);
    const killedAt = await storedEntries(jobDir);
    expect(killedAt).toBeGreaterThanOrEqual(100);
    expect(killedAt).toBeLessThan(WITHIN_DEPTH);
    const pathsOf = async () =>
      (JSON.parse((await runCli(['result', jobId], { env })).stdout) as { data: { url: string }[] }).data.map((entry) => new URL(entry.url).pathname);
    const firstRun = await pathsOf();
    // Every page the killed run stored shows (the record counts them only every so often; a kill
    // may leave at most the entries being written, 16, missing before the last one written).
    expect(firstRun.length).toBeGreaterThan(killedAt - 16);

    // The second run is killed further on, then the third ends the crawl.
    const second = startCli(['resume', jobId, '-q'], { env });
    await until(
      async () => (stored = await storedEntries(jobDir)) >= killedAt + 120 || second.child.exitCode !== null,
      () => `${stored} pages stored`,
      120_000,
    );
    second.child.kill('SIGKILL');
    await second.done;
    expect(await storedEntries(jobDir)).toBeLessThan(WITHIN_DEPTH);
    const secondRun = await pathsOf();

    const third = await runCli(['resume', jobId, '--jsonl', '-q'], { env, timeoutMs: 180_000 });
    expect(third.stderr).toBe('');
    expect(third.code).toBe(0);
    const result = await runCli(['result', jobId], { env });
    const record = JSON.parse(result.stdout) as { status: string; data: { url: string; status: string }[] };
    expect(record.status).toBe('completed');
    const paths = record.data.map((entry) => new URL(entry.url).pathname);
    expect(new Set(paths).size).toBe(paths.length);
    expect([...paths].sort()).toEqual(Array.from({ length: WITHIN_DEPTH }, (_, n) => page(n)).sort());
    expect(record.data.every((entry) => entry.status === 'completed')).toBe(true);
    // Each run's pages keep their places; the next run's come after them.
    expect(paths.slice(0, secondRun.length)).toEqual(secondRun);
    expect(secondRun.slice(0, firstRun.length)).toEqual(firstRun);
    // A page in flight at a kill is asked for again; none more than that.
    expect(Math.max(...served.values())).toBeLessThanOrEqual(2);
  });
});
