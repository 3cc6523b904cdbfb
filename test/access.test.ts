/**
 * Pages behind a login: --header, --cookie, --cookies FILE and --user-agent reach
 * the page and every request the crawl makes on the site, never another site
 * (a second site is 127.0.0.2: cookies ignore ports), and never show in errors
 * or listings. `serve` takes them as scrapeOptions extensions.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer, type ReceivedRequest } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { serveClient } from './helpers/serveClient.js';

const home = tempHome();
const env = { WEBJOBS_HOME: home };
const TOKEN = 'Bearer tok-7f3a9c';
const SESSION = 'sess-41b2e8d0';
const UA = 'webjobs-test-agent/1.0';

let site: FixtureServer;
let other: FixtureServer;
let cookiesFile: string;

function page(title: string, extra = ''): string {
  return html(`<article><h1>${title}</h1>${articleText(title, 3)}${extra}</article>`, { title });
}

/** The requests `server` got for `pathname` (query ignored). */
function got(server: FixtureServer, pathname: string): ReceivedRequest[] {
  return server.received.filter((request) => new URL(request.path, 'http://x').pathname === pathname);
}

beforeAll(async () => {
  other = await startFixtureServer(
    {
      '/frame': (_req, res) => sendHtml(res, html('<p>a frame from another site</p>')),
      '/sitemap.xml': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<?xml version="1.0"?><urlset><url><loc>${site.at('/from-sitemap')}</loc></url></urlset>`);
      },
      '/landing': (_req, res) => sendHtml(res, page('Landing elsewhere')),
    },
    undefined,
    '127.0.0.2',
  );
  site = await startFixtureServer({
    '/': (_req, res) => sendHtml(res, page('Members area', `<iframe src="${other.at('/frame')}"></iframe><a href="/inner">inner</a>`)),
    '/inner': (_req, res) => sendHtml(res, page('Inner page')),
    '/from-sitemap': (_req, res) => sendHtml(res, page('Sitemap page')),
    '/private/area': (_req, res) => sendHtml(res, page('Private area')),
    '/away': (_req, res) => {
      res.writeHead(302, { location: other.at('/landing') });
      res.end();
    },
    '/robots.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`User-agent: *\nAllow: /\n\nSitemap: ${site.at('/sitemap.xml')}\nSitemap: ${other.at('/sitemap.xml')}\n`);
    },
    '/sitemap.xml': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0"?><urlset><url><loc>${site.at('/from-sitemap')}</loc></url></urlset>`);
    },
  });
  // As curl -c writes it: a comment, an HttpOnly cookie, and a cookie of the other site.
  cookiesFile = path.join(home, 'cookies.txt');
  writeFileSync(
    cookiesFile,
    [
      '# Netscape HTTP Cookie File',
      `#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t${SESSION}`,
      `127.0.0.1\tFALSE\t/private\tFALSE\t0\tdeep\tonly-under-private`,
      `127.0.0.2\tFALSE\t/\tFALSE\t0\ttheirs\tother-site-cookie`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await site?.close();
  await other?.close();
});

const access = () => ['--header', `Authorization: ${TOKEN}`, '--header', 'X-Team: blue', '--cookie', 'lang=de', '--cookies', cookiesFile, '--user-agent', UA];

describe('pages behind a login', () => {
  it('scrape sends the headers, cookies and user-agent to the page, and only the cookies of its own domain to another site', async () => {
    // The browser: the page's frame from another site is what this checks.
    const result = await runCli(['scrape', site.at('/'), ...access(), '--engine', 'browser'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Members area');

    const [main] = got(site, '/');
    expect(main!.headers.authorization).toBe(TOKEN);
    expect(main!.headers['x-team']).toBe('blue');
    expect(main!.headers['user-agent']).toBe(UA);
    // The cookie of /private stays there; the other site's cookie stays there.
    expect(main!.headers.cookie?.split('; ').sort()).toEqual(['lang=de', `session=${SESSION}`]);

    const [frame] = got(other, '/frame');
    expect(frame, 'the page loads a frame from the other site').toBeDefined();
    expect(frame!.headers.authorization).toBeUndefined();
    expect(frame!.headers['x-team']).toBeUndefined();
    // The other site's own cookie is the browser's to send (a frame from another site gets no SameSite=Lax cookie).
    expect(frame!.headers.cookie ?? '').not.toContain(SESSION);
    expect(frame!.headers.cookie ?? '').not.toContain('lang=');
    expect(frame!.headers['user-agent']).toBe(UA);
  });

  it('a redirect to another site takes none of the headers or cookies along', async () => {
    const result = await runCli(['scrape', site.at('/away'), ...access()], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Landing elsewhere');
    expect(got(site, '/away')[0]!.headers.authorization).toBe(TOKEN);
    const [landing] = got(other, '/landing');
    expect(landing!.headers.authorization).toBeUndefined();
    expect(landing!.headers.cookie).toBe('theirs=other-site-cookie');
  });

  it('crawl sends them with every page, robots.txt and sitemap of the site, and not to a sitemap on another site', async () => {
    const before = site.received.length;
    const result = await runCli(['crawl', site.at('/'), '--max-pages', '5', '--json', ...access()], { env });
    expect(result.code).toBe(0);
    const pages = JSON.parse(result.stdout).data.map((entry: { url: string }) => new URL(entry.url).pathname);
    expect(pages).toEqual(expect.arrayContaining(['/', '/inner', '/from-sitemap']));

    const ours = site.received.slice(before);
    for (const pathname of ['/robots.txt', '/sitemap.xml', '/', '/inner', '/from-sitemap']) {
      const request = ours.find((r) => new URL(r.path, 'http://x').pathname === pathname);
      expect(request, pathname).toBeDefined();
      expect(request!.headers.authorization, pathname).toBe(TOKEN);
      expect(request!.headers.cookie, pathname).toContain(`session=${SESSION}`);
      expect(request!.headers['user-agent'], pathname).toBe(UA);
    }
    const [theirSitemap] = got(other, '/sitemap.xml');
    expect(theirSitemap).toBeDefined();
    expect(theirSitemap!.headers.authorization).toBeUndefined();
    expect(theirSitemap!.headers.cookie).toBe('theirs=other-site-cookie');
    expect(theirSitemap!.headers['user-agent']).toBe(UA);
  });

  it('keeps them in the stored request, and never shows a value in errors or listings', async () => {
    // Nothing listens on port 9 of 127.0.0.1: the page fails, and its error names the URL, which holds the token.
    const url = `http://127.0.0.1:9/?t=${encodeURIComponent(SESSION)}`;
    const result = await runCli(['scrape', url, '--cookie', `session=${SESSION}`, '--header', `Authorization: ${TOKEN}`, '--json'], { env });
    expect(result.code).not.toBe(0);
    // The job's error (stderr also repeats the URL as the user typed it: not the job's to hide).
    expect(JSON.parse(result.stdout).error).toContain('[hidden]');
    expect(result.stdout).not.toContain(SESSION);
    const jobId = JSON.parse(result.stdout).jobId as string;

    // The listing shows each job's URL as given (this one's holds the value on purpose), and nothing else of the request.
    const rows = JSON.parse((await runCli(['jobs', '--json'], { env })).stdout) as { jobId: string; url: string }[];
    expect(rows.map((row) => row.jobId)).toContain(jobId);
    for (const row of rows) {
      const { url: _url, ...rest } = row;
      expect(JSON.stringify(rest)).not.toContain(SESSION);
      expect(JSON.stringify(row)).not.toContain('tok-7f3a9c');
    }
    for (const out of [(await runCli(['status', jobId], { env })).stdout, (await runCli(['result', jobId, '--json'], { env })).stdout]) {
      expect(out).not.toContain(SESSION);
      expect(out).not.toContain('tok-7f3a9c');
    }
    // The request as stored, to run the job (and retry it): the values are there.
    const metaFile = findFile(path.join(home), 'meta.json', jobId);
    const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
    expect(meta.request.scrapeOptions.headers).toEqual({ authorization: TOKEN });
    expect(meta.request.scrapeOptions.cookies).toEqual([{ name: 'session', value: SESSION }]);
  });

  it('refuses a malformed flag with a one-line usage error that shows no value', async () => {
    const noColon = await runCli(['scrape', site.at('/'), '--header', 'Authorization Bearer-secret-xyz'], { env });
    expect(noColon.code).toBe(2);
    expect(noColon.stderr).toContain("--header must look like 'Name: value'");
    expect(noColon.stderr).not.toContain('secret-xyz');

    const badFile = path.join(home, 'bad-cookies.txt');
    writeFileSync(badFile, 'example.com TRUE / FALSE 0 name secret-in-file\n');
    const bad = await runCli(['scrape', site.at('/'), '--cookies', badFile], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('line 1 is not a cookies.txt line');
    expect(bad.stderr).not.toContain('secret-in-file');

    const reserved = await runCli(['scrape', site.at('/'), '--header', 'Cookie: a=b'], { env });
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toContain('--cookie');
  });
});

/** The file `name` in a directory named after `jobId`, anywhere under `root`. */
function findFile(root: string, name: string, jobId: string): string {
  const entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
  const found = entries.find((entry) => entry.endsWith(path.join(jobId, name)));
  if (!found) throw new Error(`no ${name} for ${jobId} under ${root}`);
  return path.join(root, found);
}

describe('serve takes headers, cookies and userAgent in scrapeOptions', () => {
  let serve: ServeProcess;
  const client = serveClient(() => serve.url, 'k_access');

  beforeAll(async () => {
    serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: 'k_access:scale' } });
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('sends them to the page', async () => {
    const before = site.received.length;
    const job = await client.start('scrape', {
      url: site.at('/inner'),
      scrapeOptions: { headers: { Authorization: TOKEN }, cookies: [{ name: 'session', value: SESSION }], userAgent: UA },
    });
    expect(await client.waitFinal(job)).toBe('completed');
    const request = site.received.slice(before).find((r) => r.path === '/inner')!;
    expect(request.headers.authorization).toBe(TOKEN);
    expect(request.headers.cookie).toBe(`session=${SESSION}`);
    expect(request.headers['user-agent']).toBe(UA);
  });

  it('refuses too many headers, and a value on two lines without echoing it', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-H${i}`, 'v']));
    const tooMany = await client.call('POST', '/api/scrape', { body: { url: site.at('/'), scrapeOptions: { headers: many } } });
    expect(tooMany.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(tooMany.body)).toContain('the limit is 50');

    const split = await client.call('POST', '/api/scrape', {
      body: { url: site.at('/'), scrapeOptions: { headers: { 'X-Evil': 'secret-line\r\nHost: evil' } } },
    });
    expect(split.status).toBe(400);
    expect(JSON.stringify(split.body)).not.toContain('secret-line');

    const cookie = await client.call('POST', '/api/scrape', {
      body: { url: site.at('/'), scrapeOptions: { cookies: [{ name: 'a', value: 'x;y', domain: 'example.com' }] } },
    });
    expect(cookie.status).toBe(400);
    expect(JSON.stringify(cookie.body)).not.toContain('x;y');
  });
});
