/**
 * `webjobs scrape` end to end: the real CLI, a real Chromium, fixture pages on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { BIN, runCli, tempHome } from './helpers/cli.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };

beforeAll(async () => {
  site = await startFixtureServer({
    '/article': (_req, res) =>
      sendHtml(
        res,
        html(
          `<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
           <article><h1>Main headline</h1>${articleText('rivers')}
             <h2>Details</h2><ul><li>first point</li><li>second point</li></ul>
             <p>See <a href="/more">more</a> and <a href="#top">top</a>.</p></article>
           <footer>Copyright footer text</footer>`,
          { title: 'River article', head: '<meta name="description" content="All about rivers"><meta property="og:title" content="OG rivers">' },
        ),
      ),
    '/rendered': (_req, res) =>
      sendHtml(
        res,
        html(`<div id="app">Loading…</div>
          <script>
            setTimeout(() => {
              document.getElementById('app').innerHTML = '<article><h1>Rendered later</h1>' +
                ${JSON.stringify(articleText('scripts'))} + '</article>';
            }, 200);
          </script>`),
      ),
    '/redirect': (_req, res) => {
      res.writeHead(302, { location: '/article' });
      res.end();
    },
    '/error': (_req, res) => sendHtml(res, html(`<article><h1>Server trouble</h1>${articleText('errors')}</article>`), 500),
    '/empty-error': (_req, res) => {
      res.writeHead(500, { 'content-length': '0' });
      res.end();
    },
    '/hang': () => {
      /* never answers */
    },
    '/stuck-iframe': (_req, res) =>
      sendHtml(res, html(`<article><h1>Never finishes loading</h1>${articleText('iframes')}</article><iframe src="/hang"></iframe>`)),
    '/with-media': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Pictures</h1>${articleText('pictures', 3)}<img src="/pic.png" alt="pic"><img src="/photo.jpg?w=200">
          <video src="/clip.mp4"></video></article>`),
      ),
    '/binary': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.end(Buffer.alloc(64));
    },
    '/code': (_req, res) =>
      sendHtml(
        res,
        html(`<article><h1>Code and tables</h1>${articleText('code', 3)}
          <pre><code class="language-python">print("hi")</code></pre>
          <table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Tea</td><td>3</td></tr></tbody></table></article>`),
      ),
  });
});

afterAll(async () => {
  await site.close();
});

describe('webjobs scrape', () => {
  it('prints the main content as markdown, without page chrome', async () => {
    const { code, stdout, stderr } = await runCli(['scrape', site.at('/article')], { env });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Main headline');
    expect(stdout).toContain('Paragraph 6 about rivers');
    expect(stdout).toMatch(/- +first point/);
    expect(stdout).toContain(`[more](${site.at('/more')})`);
    expect(stdout).not.toContain('Copyright footer');
    expect(stdout).not.toContain('About us');
  });

  it('--json prints the job record exactly as stored, with metadata', async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/redirect'), '--json', '--formats', 'markdown,links'], { env });
    expect(code).toBe(0);
    const record = JSON.parse(stdout);
    expect(Object.keys(record).sort()).toEqual(['data', 'jobId', 'status']);
    expect(record.status).toBe('completed');
    expect(record.data.metadata).toMatchObject({
      title: 'River article',
      description: 'All about rivers',
      'og:title': 'OG rivers',
      language: 'en',
      url: site.at('/article'),
      sourceURL: site.at('/redirect'),
      statusCode: '200',
    });
    expect(record.data.links).toEqual([site.at('/'), site.at('/about'), site.at('/more'), site.at('/article')]);
    const stored = JSON.parse(readFileSync(path.join(home, 'jobs', record.jobId, 'job.json'), 'utf8'));
    expect(stored).toEqual(record);
  });

  it('waits for content rendered by script after load, with no option asking for it', async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/rendered')], { env });
    expect(code).toBe(0);
    expect(stdout).toContain('Rendered later');
    expect(stdout).not.toContain('Loading');
  });

  it('--wait-for still adds a fixed wait', async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/rendered'), '--wait-for', '600', '--wait-until', 'domcontentloaded'], { env });
    expect(code).toBe(0);
    expect(stdout).toContain('Rendered later');
  });

  it('keeps code block languages and GFM tables', async () => {
    const { stdout } = await runCli(['scrape', site.at('/code')], { env });
    expect(stdout).toContain('```python\nprint("hi")\n```');
    expect(stdout).toMatch(/\| Name \| Price \|\n\| -+ \| -+ \|\n\| Tea \| 3 \|/);
  });

  it('prints links one a line when only links are asked', async () => {
    const { stdout } = await runCli(['scrape', site.at('/article'), '--formats', 'links'], { env });
    expect(stdout.trim().split('\n')).toEqual([site.at('/'), site.at('/about'), site.at('/more'), site.at('/article')]);
  });

  it('completes a 404 or 500 page with its status code', async () => {
    const notFound = JSON.parse((await runCli(['scrape', site.at('/missing'), '--json'], { env })).stdout);
    expect(notFound.status).toBe('completed');
    expect(notFound.data.metadata.statusCode).toBe('404');
    const serverError = JSON.parse((await runCli(['scrape', site.at('/error'), '--json'], { env })).stdout);
    expect(serverError.data.metadata.statusCode).toBe('500');
    expect(serverError.data.markdown).toContain('Server trouble');
  });

  it("completes a 500 with an empty body with its status code and no content, not Chromium's error page", async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/empty-error'), '--json'], { env });
    expect(code).toBe(0);
    const record = JSON.parse(stdout);
    expect(record.status).toBe('completed');
    expect(record.data.markdown).toBe('');
    expect(record.data.metadata).toMatchObject({ statusCode: '500', url: site.at('/empty-error'), sourceURL: site.at('/empty-error') });
    expect(stdout).not.toMatch(/isn.t working|HTTP ERROR|chrome-error/i);
  });

  it('fails a hanging page at its timeout, with exit code 1 and the record saying why', async () => {
    const { code, stdout, stderr } = await runCli(['scrape', site.at('/hang'), '--timeout', '1500', '--json'], { env });
    expect(code).toBe(1);
    const record = JSON.parse(stdout);
    expect(record.status).toBe('failed');
    expect(record.error).toMatch(/timed out after 1500 ms/);
    expect(stderr).toMatch(/timed out/);
  });

  it('reads a page whose document arrived but whose load event never comes, and says so', async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/stuck-iframe'), '--timeout', '1500', '--json', '--engine', 'browser'], { env });
    expect(code).toBe(0);
    const record = JSON.parse(stdout);
    expect(record.data.markdown).toContain('Paragraph 6 about iframes');
    expect(record.data.metadata.warning).toMatch(/did not finish loading within 1500 ms/);
  });

  it('fails a refused connection and a non-HTML download with clear errors', async () => {
    const refused = await runCli(['scrape', 'http://127.0.0.1:9/', '--timeout', '5000'], { env });
    expect(refused.code).toBe(1);
    // Chromium's code with --engine browser; the HTTP engine's words with auto.
    expect(refused.stderr).toMatch(/ERR_(CONNECTION_REFUSED|UNSAFE_PORT)|connection refused: nothing is listening/);
    const binary = await runCli(['scrape', site.at('/binary')], { env });
    expect(binary.code).toBe(1);
    expect(binary.stderr).toMatch(/not a web page|did not render/);
  });

  it('never downloads images or media', async () => {
    const { code, stdout } = await runCli(['scrape', site.at('/with-media')], { env });
    expect(code).toBe(0);
    expect(stdout).toContain('Pictures');
    expect(site.requests).toContain('GET /with-media');
    expect(site.requests.filter((r) => /pic\.png|photo\.jpg|clip\.mp4/.test(r))).toEqual([]);
  });

  it('writes to a file with -o and nothing to stdout', async () => {
    const out = path.join(home, 'out', 'page.md');
    const { code, stdout } = await runCli(['scrape', site.at('/article'), '-o', out], { env });
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toContain('Main headline');
  });
});

describe('terminals', () => {
  it('finishes quietly on a pseudo-terminal that has no size (no runaway spinner)', async () => {
    const out = path.join(home, 'pty-out.md');
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} scrape ${site.at('/article')} > ${JSON.stringify(out)}`;
    // Without CI in the environment at all: spinners (ora) switch themselves off when it is there, even empty.
    const { CI: _ci, ...withoutCi } = process.env;
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: { ...withoutCi, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    let terminalBytes = 0;
    child.stdout.on('data', (d: Buffer) => (terminalBytes += d.length));
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('Main headline');
    expect(terminalBytes).toBeLessThan(10_000);
  });
});

describe('bad input', () => {
  it('refuses an invalid URL with exit code 2 before creating a job', async () => {
    const { code, stderr } = await runCli(['scrape', 'not a url'], { env });
    expect(code).toBe(2);
    expect(stderr).toMatch(/not a valid URL/);
    const ftp = await runCli(['scrape', 'ftp://example.com/file'], { env });
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toMatch(/http or https/);
  });

  it('refuses unknown formats and bad numbers with exit code 2', async () => {
    expect((await runCli(['scrape', site.at('/article'), '--formats', 'pdf'], { env })).code).toBe(2);
    expect((await runCli(['scrape', site.at('/article'), '--timeout', 'soon'], { env })).code).toBe(2);
    expect((await runCli(['scrape', site.at('/article'), '--wait-until', 'never'], { env })).code).toBe(2);
  });

  it('fails with the option named when only the page finds a CSS selector invalid', async () => {
    // The check before the job lets this one through (test/selectors.test.ts); Chromium refuses it.
    const { code, stderr } = await runCli(['scrape', site.at('/article'), '--include-tags', 'article,a::before::after'], { env });
    expect(code).toBe(1);
    expect(stderr).toContain('includeTags: "a::before::after" is not a valid CSS selector');
  });

  it('says what to do when no browser can be found (exit code 6)', async () => {
    // --engine browser: auto reads this page without one (test/engines.test.ts).
    const { code, stderr } = await runCli(['scrape', site.at('/article'), '--engine', 'browser'], {
      env: { ...env, WEBJOBS_CHROME: '/nonexistent/chrome' },
    });
    expect(code).toBe(6);
    expect(stderr).toMatch(/WEBJOBS_CHROME is set to \/nonexistent\/chrome/);
  });

  it('reports an unknown job id with exit code 4', async () => {
    const { code, stderr } = await runCli(['status', '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d'], { env });
    expect(code).toBe(4);
    expect(stderr).toMatch(/No job with id/);
    expect((await runCli(['result', 'nope'], { env })).code).toBe(2);
  });

  it('has --help with examples on every command', async () => {
    for (const command of ['scrape', 'batch', 'crawl', 'extract', 'serve', 'status', 'result', 'jobs', 'cancel']) {
      const { code, stdout } = await runCli([command, '--help'], { env });
      expect(code).toBe(0);
      expect(stdout).toContain('Examples:');
    }
    const top = await runCli(['--help'], { env });
    expect(top.stdout).toContain('Exit codes:');
  });
});
