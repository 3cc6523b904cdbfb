/**
 * The contract suite (issue 40): remote mode and asynchronous jobs. The real CLI in local mode and in remote mode
 * against a `webjobs serve` child process must print the same bytes for the same job (job ids aside), map and
 * the page cache too. Also --no-wait, status, result paging, jobs, cancel, --wait-timeout, and (file store) a
 * server killed mid-job and started again; and the cases of contractCases.ts (extract, files, robots.txt after a
 * redirect, Crawl-delay, per-key limits).
 * Run against a serve on the file store (remote.test.ts) and on PostgreSQL (remotePostgres.test.ts: an API node,
 * `serve --database --no-worker`, and two `webjobs worker` processes): the same assertions hold on either.
 */
import { once } from 'node:events';
import type http from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome, type CliResult } from './cli.js';
import { contractCases, type ContractTarget } from './contractCases.js';
import { crawlContractCases } from './crawlContractCases.js';
import { alertContractCases } from './alertContractCases.js';
import { startFakeAnthropic, type FakeAnthropic } from './fakeAnthropic.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './fixtureServer.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { startSearxng, type StandIn } from './searchEngines.js';
import { startServe, type ServeProcess } from './serve.js';
import { serveClient } from './serveClient.js';
import { startWorker, type WorkerProcess } from './worker.js';

export function remoteSuite(store: 'file' | 'postgres'): void {

  const KEY = 'remote-test-key-0123456789';
  const OTHER_KEY = 'remote-other-key-0123456789';
  const LIMITED_KEY = 'remote-limited-key-0123456789';
  const FINAL = ['completed', 'failed', 'stopped'];
  const KEYS_ENV = `${KEY}:scale,${OTHER_KEY}:scale,${LIMITED_KEY}:scale`;
  const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

  let site: FixtureServer;
  let server: ServeProcess;
  let pg: TestPostgres | undefined;
  let workers: WorkerProcess[] = [];
  let llm: FakeAnthropic;
  /** The search engine of `webjobs search`, locally and on serve's API node. */
  let searxng: StandIn;
  const localHome = tempHome();
  /** Where extract jobs find their model, locally and on serve's side (API node and workers). */
  const modelEnv = (): NodeJS.ProcessEnv => ({ ANTHROPIC_API_KEY: 'sk-test-key', ANTHROPIC_BASE_URL: llm.url, WEBJOBS_MODEL: '', WEBJOBS_EXTRACT_PROVIDER: '', OPENAI_API_KEY: '', WEBJOBS_SEARXNG_URL: searxng.url, WEBJOBS_BRAVE_API_KEY: '' });
  let gateOpen = false;
  /** Requests for /held the site has taken (and never answers), and those whose connection has closed. */
  const held = { opened: 0, closed: 0 };
  const heldWaiters: (() => void)[] = [];
  const wakeHeld = () => heldWaiters.splice(0).forEach((wake) => wake());
  /**
   * Requests for /dropped, by their query (one per mode): held unanswered until the test drops its query's, then
   * their connections closed without an answer, as every later one of that query is at once: the job fails.
   */
  const dropped = { released: new Set<string>(), held: [] as { query: string; res: http.ServerResponse }[] };
  function drop(query: string): void {
    dropped.released.add(query);
    for (const { res } of dropped.held.filter((h) => h.query === query)) res.destroy();
  }
  function untilHeld(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (condition() ? resolve() : heldWaiters.push(check));
      check();
    });
  }

  const local = (args: string[]) => runCli(args, { env: { WEBJOBS_HOME: localHome, ...modelEnv() } });
  /** Remote mode; the CLI's own WEBJOBS_HOME is empty, so nothing can come from a local store. */
  const remote = (args: string[], target = server) =>
    runCli([...args, '--remote', target.url, '--api-key', KEY], { env: { WEBJOBS_HOME: tempHome() } });

  /** Job ids and scrape times differ between two runs of the same job; everything else must not. */
  const sameIds = (text: string) =>
    text.replace(UUID, '<jobId>').replace(/("scrapedAt": ?\\?")\d{4}-\d\d-\d\dT[\d:.]+Z/g, '$1<time>');

  function expectSame(a: CliResult, b: CliResult): void {
    expect({ code: b.code, stdout: sameIds(b.stdout), stderr: sameIds(b.stderr) }).toEqual({
      code: a.code,
      stdout: sameIds(a.stdout),
      stderr: sameIds(a.stderr),
    });
  }

  /**
   * The job's status once it is one of `wanted`. A final status is awaited by one `webjobs wait` (one process
   * following the job to its end; polling `status` started a CLI every 200 ms).
   */
  async function untilStatus(run: (args: string[]) => Promise<CliResult>, jobId: string, wanted: string[]): Promise<string> {
    if (wanted.every((status) => FINAL.includes(status))) {
      const waited = await run(['wait', jobId, '-q', '--wait-timeout', '60']);
      const status = waited.stdout.trim();
      if (!wanted.includes(status)) throw new Error(`job ${jobId} ended ${status || `nowhere (wait exit ${waited.code}: ${waited.stderr.trim()})`}, expected ${wanted.join(' or ')}`);
      return status;
    }
    let last = '';
    for (let i = 0; i < 150; i++) {
      last = (await run(['status', jobId])).stdout.trim();
      if (wanted.includes(last)) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`job ${jobId} stayed ${last}, expected ${wanted.join(' or ')}`);
  }

  /** Until scrape job `jobId` of serve `target` runs, asked over HTTP (no CLI started per look). */
  const untilRunning = (target: ServeProcess, jobId: string) => serveClient(() => target.url, KEY).waitStatus(`/api/scrape/${jobId}`, 'running');

  beforeAll(async () => {
    llm = await startFakeAnthropic();
    site = await startFixtureServer({
      '/': (_req, res) =>
        sendHtml(res, html(`<article><h1>Home</h1>${articleText('home')}<p><a href="/a">A</a> <a href="/b">B</a></p></article>`, { title: 'Home' })),
      '/a': (_req, res) => sendHtml(res, html(`<article><h1>Page A</h1>${articleText('alpha')}</article>`, { title: 'A' })),
      '/b': (_req, res) => sendHtml(res, html(`<article><h1>Page B</h1>${articleText('beta')}<p><a href="/">home</a></p></article>`, { title: 'B' })),
      '/hang': () => new Promise(() => undefined),
      '/held': (_req, res) => {
        held.opened++;
        wakeHeld();
        res.on('close', () => {
          held.closed++;
          wakeHeld();
        });
      },
      '/dropped': (req, res) => {
        const query = new URL(req.url ?? '/', 'http://x').search;
        if (dropped.released.has(query)) res.destroy();
        else dropped.held.push({ query, res });
      },
      /** Hangs until the test opens the gate, then serves a page. */
      '/gate': async (_req, res) => {
        while (!gateOpen) await new Promise((r) => setTimeout(r, 100));
        sendHtml(res, html(`<article><h1>Through the gate</h1>${articleText('gates')}</article>`));
      },
    });
    searxng = await startSearxng(
      [site.at('/a'), site.at('/b'), site.at('/')].map((url, i) => ({ url, title: `Page ${i + 1}`, text: `Alpha and beta, page ${i + 1}.` })),
      { formats: ['html', 'json'] },
    );
    // On PostgreSQL, this serve is an API node only: two worker processes run the jobs.
    if (store === 'postgres') pg = await startPostgres();
    const database = pg ? ['--database', pg.url, '--no-worker'] : [];
    const starting = pg ? [1, 2].map(() => startWorker(pg!.url, ['--quiet'], modelEnv())) : [];
    server = await startServe({ args: ['--allow-private', '--quiet', ...database], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: KEYS_ENV, ...modelEnv() } });
    workers = await Promise.all(starting);
  });

  afterAll(async () => {
    gateOpen = true;
    await Promise.all([server?.stop(), ...workers.map((worker) => worker.stop())]);
    await llm?.close();
    await searxng?.close();
    await site?.close();
    await pg?.stop();
  });

  describe('same output locally and remotely', () => {
    it('scrape: Markdown and --json with every format', async () => {
      for (const args of [['scrape', site.at('/a')], ['scrape', site.at('/'), '--json', '--formats', 'markdown,html,links']]) {
        const [l, r] = await Promise.all([local(args), remote(args)]);
        expect(l.code).toBe(0);
        expectSame(l, r);
      }
    });

    it('search: the same results, and the same scraped pages (a batch job run by this store)', async () => {
      for (const args of [['search', 'alpha', '--jsonl'], ['search', 'alpha beta', '--limit', '2', '--formats', 'markdown,links', '--json']]) {
        const l = await local(args);
        const r = await remote(args);
        expect(l.code, l.stderr).toBe(0);
        expect(l.stdout).toContain(site.at('/a'));
        expectSame(l, r);
      }
    });

    it('batch and crawl: --json and Markdown', async () => {
      const urls = [site.at('/a'), site.at('/b'), site.at('/'), site.at('/a')];
      for (const args of [['batch', ...urls, '--json'], ['batch', ...urls], ['crawl', site.at('/'), '--max-pages', '3', '--json']]) {
        const l = await local(args);
        const r = await remote(args);
        expect(l.code, l.stderr).toBe(0);
        expectSame(l, r);
      }
    });

    it('errors: same message and exit code', async () => {
      for (const args of [['scrape', 'ftp://example.com/x'], ['status', '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d'], ['result', 'not-a-job-id']]) {
        const [l, r] = await Promise.all([local(args), remote(args)]);
        expect(l.code).not.toBe(0);
        expectSame(l, r);
      }
    });

    it('map, and the page cache of --max-age: the same output, a miss then a hit', async () => {
      const mapArgs = ['map', site.at('/'), '--json'];
      const [lm, rm] = await Promise.all([local(mapArgs), remote(mapArgs)]);
      expect(lm.code, lm.stderr).toBe(0);
      expect(JSON.parse(lm.stdout).links.length).toBe(3);
      expectSame(lm, rm);
      const cacheArgs = ['batch', site.at('/b'), '--max-age', '1h', '--json'];
      for (const cacheState of ['miss', 'hit']) {
        const l = await local(cacheArgs);
        const r = await remote(cacheArgs);
        expect(JSON.parse(l.stdout).data[0].metadata.cacheState, l.stderr).toBe(cacheState);
        expectSame(l, r);
      }
    });

    it('remote failures of its own: wrong key exits 2, no server exits 7', async () => {
      const wrong = await runCli(['scrape', site.at('/a'), '--remote', server.url, '--api-key', 'wrong'], { env: { WEBJOBS_HOME: tempHome() } });
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain('invalid API key');
      const nobody = await runCli(['jobs'], { env: { WEBJOBS_HOME: tempHome(), WEBJOBS_REMOTE: 'http://127.0.0.1:9', WEBJOBS_API_KEY: KEY } });
      expect(nobody.code).toBe(7);
      expect(nobody.stderr).toContain('could not reach the webjobs service at http://127.0.0.1:9/api');
    });
  });

  describe('asynchronous jobs in both modes', () => {
    it('--no-wait prints the id; status, result and result --page --batch-size agree across modes', async () => {
      const args = ['batch', site.at('/a'), site.at('/b'), site.at('/'), '--no-wait'];
      const [l, r] = await Promise.all([local(args), remote(args)]);
      const localId = l.stdout.trim();
      const remoteId = r.stdout.trim();
      expect(localId).toMatch(UUID);
      expect(remoteId).toMatch(UUID);
      expect(await untilStatus(local, localId, ['completed', 'failed'])).toBe('completed');
      expect(await untilStatus(remote, remoteId, ['completed', 'failed'])).toBe('completed');
      for (const extra of [[], ['--page', '2', '--batch-size', '1'], ['--page', '2', '--batch-size', '2']]) {
        expectSame(await local(['result', localId, ...extra]), await remote(['result', remoteId, ...extra]));
      }
      const paged = JSON.parse((await remote(['result', remoteId, '--page', '3', '--batch-size', '1'])).stdout);
      expect(paged).toMatchObject({ currentPageBatch: 3, totalPageBatches: 3, batchSize: 1, data: [{ url: site.at('/') }] });
      expectSame(await local(['status', localId, '--json']), await remote(['status', remoteId, '--json']));
    });

    it('jobs lists the jobs, as text and JSON', async () => {
      const { stdout } = await remote(['scrape', site.at('/b'), '--no-wait']);
      const jobId = stdout.trim();
      const text = await remote(['jobs']);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(new RegExp(`^${jobId}  scrape `, 'm'));
      const list = JSON.parse((await remote(['jobs', '--json'])).stdout);
      expect(list.find((j: { jobId: string }) => j.jobId === jobId)).toMatchObject({ kind: 'scrape', url: site.at('/b') });
      await untilStatus(remote, jobId, ['completed']);
    });

    it('cancel stops a running job in both modes, and its hanging page request is dropped at once', async () => {
      for (const run of [local, remote]) {
        const { opened, closed } = held;
        // A page timeout far beyond this test's own: only the cancel can end the request in time.
        const jobId = (await run(['scrape', site.at('/held'), '--timeout', '300000', '--no-wait'])).stdout.trim();
        await untilHeld(() => held.opened > opened);
        const cancelled = await run(['cancel', jobId]);
        expect(cancelled).toMatchObject({ code: 0, stdout: 'stopped\n' });
        expect((await run(['status', jobId])).stdout).toBe('stopped\n');
        // The job let go of the page: its connection closes, not at the page's timeout.
        await untilHeld(() => held.closed > closed);
      }
    });

    it('--wait-timeout gives up waiting with exit 5 and the job goes on', async () => {
      // Both modes at once, each on a page held until its job was seen going on after the CLI gave up (no page
      // timeout to wait out, and none a loaded machine could reach first); then the page's connection is dropped.
      await Promise.all(([['local', local], ['remote', remote]] as const).map(async ([mode, run]) => {
        const result = await run(['scrape', site.at(`/dropped?${mode}`), '--timeout', '120000', '--wait-timeout', '1']);
        expect(result.code).toBe(5);
        const jobId = /job ([0-9a-f-]{36}) goes on/.exec(result.stderr)?.[1];
        expect(jobId, result.stderr).toBeDefined();
        expect(result.stdout).toBe('');
        expect(['pending', 'running']).toContain((await run(['status', jobId!])).stdout.trim());
        drop(`?${mode}`);
        expect(await untilStatus(run, jobId!, ['failed'])).toBe('failed');
      }));
    }, 120_000);
  });

  const contractTarget: ContractTarget = {
    url: () => server.url,
    key: KEY,
    otherKey: OTHER_KEY,
    limitedKey: LIMITED_KEY,
    llm: () => llm,
    local,
    remote: (args) => remote(args),
    expectSame,
  };
  contractCases(contractTarget);
  crawlContractCases(contractTarget);
  alertContractCases(contractTarget);

  describe('stopping serve', () => {
    it('SIGTERM while a client holds a connection it has sent nothing on and a Firecrawl scrape waits on a page: serve stops at once', async () => {
      const database = pg ? ['--database', pg.url] : [];
      const first = await startServe({ args: ['--allow-private', '--quiet', ...database], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: KEYS_ENV } });
      // An HTTP client's spare pooled connection: open, not one byte sent yet.
      const { hostname, port } = new URL(first.url);
      const spare = connect(Number(port), hostname);
      await once(spare, 'connect');
      // A scrape answered in the request, on a page that hangs for longer than the test may run.
      const scrape = fetch(`${first.url}/v2/scrape`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: site.at('/hang?sync'), timeout: 300_000 }),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
      const jobs = async () => (await serveClient(() => first.url, KEY).call('GET', '/api/jobs')).body as { jobId: string; url: string; status: string }[];
      let hanging: { jobId: string; status: string } | undefined;
      while ((hanging = (await jobs()).find((job) => job.url === site.at('/hang?sync')))?.status !== 'running') await new Promise((r) => setTimeout(r, 100));
      try {
        expect(await first.stop()).toBe(0);
        // The waiting client is answered, not left hanging up on.
        expect(await scrape).toMatchObject({ status: 503, body: { success: false, error: expect.stringMatching(/^webjobs serve shut down while this request waited for job /) } });
      } finally {
        spare.destroy();
        // On PostgreSQL the job outlives the API node that took it: it is stopped here, not left to hold a worker.
        await remote(['cancel', hanging!.jobId]);
      }
    });
  });

  // What a restarted serve does with the jobs it ran itself (the file store). On PostgreSQL serve is an API node
  // that runs no job (the workers do, on leases that outlive it): a dead API node loses nothing, and a dead worker's
  // page runs again elsewhere (postgres.test.ts), so neither expectation below is PostgreSQL's.
  describe.runIf(store === 'file')('a server that dies mid-job', () => {
    it('after SIGKILL and a restart on the same WEBJOBS_HOME: the running job is failed saying why, the pending one is resumed', async () => {
      gateOpen = false;
      const env = { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: KEYS_ENV };
      const args = ['--allow-private', '--quiet', '--max-jobs', '1'];
      const first = await startServe({ args, env });
      const running = (await remote(['scrape', site.at('/gate'), '--no-wait'], first)).stdout.trim();
      const pending = (await remote(['scrape', `${site.at('/gate')}?second`, '--no-wait'], first)).stdout.trim();
      await untilRunning(first, running);
      expect((await remote(['status', pending], first)).stdout).toBe('pending\n');
      await first.crash();

      gateOpen = true;
      const second = await startServe({ args, env });
      try {
        const status = await remote(['status', running], second);
        expect(status.stdout).toBe('failed\n');
        const record = JSON.parse((await remote(['result', running], second)).stdout);
        expect(record.error).toMatch(/^interrupted: webjobs serve stopped while this job was running/);
        expect(await untilStatus((a) => remote(a, second), pending, ['completed', 'failed'])).toBe('completed');
        const resumed = JSON.parse((await remote(['result', pending], second)).stdout);
        expect(resumed.data.markdown).toContain('Through the gate');
      } finally {
        await second.stop();
      }
    });

    it('SIGTERM: the server stops at once with exit 0 and the running job is failed saying why', async () => {
      const env = { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: KEYS_ENV };
      const first = await startServe({ args: ['--allow-private', '--quiet'], env });
      // The page hangs for longer than the test may run: a server that waited for it would time the test out.
      const jobId = (await remote(['scrape', site.at('/hang'), '--timeout', '300000', '--no-wait'], first)).stdout.trim();
      await untilRunning(first, jobId);
      expect(await first.stop()).toBe(0);
      const second = await startServe({ args: ['--allow-private', '--quiet'], env });
      try {
        const record = JSON.parse((await remote(['result', jobId], second)).stdout);
        expect(record).toMatchObject({ status: 'failed', error: expect.stringContaining('webjobs serve shut down while this job was running') });
      } finally {
        await second.stop();
      }
    });
  });
}
