/**
 * The smaller findings of the second security probe (issue 54, finding 7) that the CLI shows: the HTTP
 * engine refuses a redirect to a data: URL, as Chromium does (ERR_UNSAFE_REDIRECT), instead of returning
 * its content as the page's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/to-data': (_req, res) => {
      res.writeHead(302, { location: 'data:text/html,<title>Data</title><h1>Smuggled</h1><p>content of a data URL</p>' });
      res.end();
    },
  });
});

afterAll(async () => {
  await site?.close();
});

describe('a redirect to a data: URL', () => {
  it('is refused by the HTTP engine, saying why, as the browser refuses it', async () => {
    const result = await runCli(['scrape', site.at('/to-data'), '--engine', 'http'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(`webjobs: scrape of ${site.at('/to-data')} failed: the page redirects to a data: URL; only http and https redirects are followed`);
  });
});
