/**
 * The smaller findings of the second security probe (issue 54, finding 7) that the CLI shows: the HTTP
 * engine refuses a redirect to a data: URL, as Chromium does (ERR_UNSAFE_REDIRECT), instead of returning
 * its content as the page's; a job folder replaced by a symbolic link is neither read nor written through.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

const env = { WEBJOBS_HOME: tempHome() };
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/page': (_req, res) => sendHtml(res, html(`<article><h1>A page</h1>${articleText('symbolic links')}</article>`)),
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

describe('a job folder replaced by a symbolic link', () => {
  it('is damaged: status and result exit 8 saying so, and prune leaves it and its target alone', async () => {
    const started = await runCli(['scrape', site.at('/page'), '--json'], { env });
    expect(started.code, started.stderr).toBe(0);
    const { jobId } = JSON.parse(started.stdout) as { jobId: string };
    const folder = path.join(env.WEBJOBS_HOME, 'jobs', jobId);
    const target = path.join(mkdtempSync(path.join(os.tmpdir(), 'webjobs-elsewhere-')), 'job');
    cpSync(folder, target, { recursive: true });
    const before = readdirSync(target).sort();
    rmSync(folder, { recursive: true });
    symlinkSync(target, folder);
    const said = `the record of job ${jobId} is damaged (jobs/${jobId} is a symbolic link, not a job's folder)`;
    for (const command of ['status', 'result']) {
      const read = await runCli([command, jobId], { env });
      expect(read.code, command).toBe(8);
      expect(read.stderr, command).toContain(said);
    }
    const pruned = await runCli(['prune', '--status', 'completed'], { env });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toContain(said);
    expect(readdirSync(target).sort()).toEqual(before);
  });
});
