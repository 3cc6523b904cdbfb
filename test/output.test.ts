/** Output a script can trust, and a terminal a person can read: the CLI's side of issue 11. */
import { readdirSync, readFileSync, existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const scratch = mkdtempSync(path.join(os.tmpdir(), 'webjobs-output-'));

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>Alpha</h1>${articleText('alpha')}<p><a href="/b">to b</a></p></article>`, { title: 'Alpha' })),
    '/b': (_req, res) => sendHtml(res, html(`<article><h1>Beta</h1>${articleText('beta')}</article>`, { title: 'Beta' })),
  });
});

afterAll(async () => {
  await site?.close();
});

describe('formats', () => {
  it('scrape --formats markdown,links prints both, each under its header', async () => {
    const result = await runCli(['scrape', site.at('/a'), '--formats', 'markdown,links'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^==> markdown <==\n[\s\S]*alpha[\s\S]*\n\n==> links <==\n/);
    expect(result.stdout).toContain(`${site.at('/b')}\n`);
  });

  it('--output-dir writes .html for html, ends files with a newline, and index.json has statusCode', async () => {
    const dir = path.join(scratch, 'html');
    const result = await runCli(['batch', site.at('/a'), site.at('/missing'), '--formats', 'html', '--output-dir', dir], { env });
    expect(result.code).toBe(0);
    const port = new URL(site.url).port;
    expect(readdirSync(dir).sort()).toEqual([`127.0.0.1_${port}_a.html`, `127.0.0.1_${port}_missing.html`, 'index.json']);
    const page = readFileSync(path.join(dir, `127.0.0.1_${port}_a.html`), 'utf8');
    expect(page).toContain('<h1>Alpha</h1>');
    expect(page.endsWith('\n')).toBe(true);
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
    expect(index.pages.map((p: { statusCode: number }) => p.statusCode)).toEqual([200, 404]);
    expect(index.pages[0].file).toBe(`127.0.0.1_${port}_a.html`);
  });

  it('--front-matter starts each Markdown file with the page\'s title, url, statusCode and scrape time as YAML', async () => {
    const dir = path.join(scratch, 'front');
    const result = await runCli(['batch', site.at('/a'), '--output-dir', dir, '--front-matter'], { env });
    expect(result.code).toBe(0);
    const port = new URL(site.url).port;
    const text = readFileSync(path.join(dir, `127.0.0.1_${port}_a.md`), 'utf8');
    const [, yaml, body] = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text) ?? [];
    const fields = Object.fromEntries((yaml ?? '').split('\n').map((line) => [line.slice(0, line.indexOf(':')), JSON.parse(line.slice(line.indexOf(':') + 2))]));
    expect(fields).toMatchObject({ title: 'Alpha', url: site.at('/a'), sourceURL: site.at('/a'), statusCode: '200' });
    expect(Date.parse(fields.scrapedAt)).not.toBeNaN();
    expect(body).toContain('alpha');
    const refused = await runCli(['batch', site.at('/a'), '--front-matter'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--front-matter goes with --output-dir');
  });

  it('markdown files end with a newline', async () => {
    const dir = path.join(scratch, 'md');
    expect((await runCli(['batch', site.at('/b'), '--output-dir', dir], { env })).code).toBe(0);
    const file = readdirSync(dir).find((name) => name.endsWith('.md'))!;
    expect(readFileSync(path.join(dir, file), 'utf8')).toMatch(/beta[^\n]*\n$/);
  });
});

describe('result --content', () => {
  it("prints a stored scrape's page as the scrape command did", async () => {
    const scraped = await runCli(['scrape', site.at('/a'), '--formats', 'markdown,links', '--json'], { env });
    const { jobId } = JSON.parse(scraped.stdout);
    const direct = await runCli(['scrape', site.at('/a'), '--formats', 'markdown,links'], { env });
    const later = await runCli(['result', jobId, '--content', '--formats', 'markdown,links'], { env });
    expect(later.code).toBe(0);
    expect(later.stdout).toBe(direct.stdout);
  });
});

describe('--no-wait', () => {
  it('refuses --output-dir instead of ignoring it, before any job starts', async () => {
    const fresh = tempHome();
    const dir = path.join(scratch, 'never');
    const result = await runCli(['batch', site.at('/a'), '--no-wait', '--output-dir', dir], { env: { WEBJOBS_HOME: fresh } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^webjobs: --no-wait .*--output-dir/);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(fresh).filter((name) => name !== 'jobs' && name !== '.lock')).toEqual([]);
    expect((await runCli(['jobs', '--json'], { env: { WEBJOBS_HOME: fresh } })).stdout.trim()).toBe('[]');
  });

  it('prints {"jobId"} with --json', async () => {
    const result = await runCli(['scrape', site.at('/b'), '--no-wait', '--json'], { env });
    expect(result.code).toBe(0);
    const { jobId } = JSON.parse(result.stdout);
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/**
 * In a pseudo-terminal with a size (script(1) + stty), as a person at a terminal.
 * CI is removed from the environment: its mere presence turns spinners off.
 */
function inTerminal(command: string, extraEnv: NodeJS.ProcessEnv = {}) {
  return runShell(`script -qec ${JSON.stringify(`stty cols 100 rows 30; ${command}`)} /dev/null`, {
    env: { ...env, TERM: 'xterm-256color', CI: undefined, ...extraEnv },
  });
}

const SPINNER_TEXT = /Scraping http/;
const SGR_COLOUR = /\x1b\[[0-9;]*m/;

describe('progress on a terminal', () => {
  it('shows the spinner when stdout and stderr are both the terminal', async () => {
    const result = await inTerminal(`webjobs scrape ${site.at('/a')}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(SPINNER_TEXT);
  });

  it('shows progress when stderr is the terminal, whatever stdout is, and clears it before the end', async () => {
    const piped = await inTerminal(`webjobs scrape ${site.at('/a')} | cat`);
    expect(piped.stdout).toContain('alpha');
    expect(piped.stdout).toMatch(SPINNER_TEXT);
    const out = path.join(scratch, 'progress.jsonl');
    const redirected = await inTerminal(`webjobs batch ${site.at('/a')} ${site.at('/b')} --jsonl > ${out}`);
    expect(redirected.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(2);
    const shown = redirected.stdout;
    expect(shown).toMatch(/pages done/);
    // After the last frame: the line is cleared and the cursor shown again, then the summary.
    const afterLast = shown.slice(shown.lastIndexOf('pages done'));
    expect(afterLast).toMatch(/\x1b\[1G\x1b\[0K[\s\S]*\x1b\[\?25h[\s\S]*2 pages scraped/);
    expect(afterLast.slice(afterLast.indexOf('2 pages scraped'))).not.toMatch(/pages done/);
  });

  it('shows no progress when stderr is not a terminal, even when stdout is', async () => {
    const err = path.join(scratch, 'stderr.txt');
    const result = await inTerminal(`webjobs batch ${site.at('/a')} 2> ${err}`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('alpha');
    expect(result.stdout).not.toMatch(/Scraping|pages done|pages scraped/);
    expect(readFileSync(err, 'utf8')).toBe('');
  });

  it('writes colour codes only without NO_COLOR', async () => {
    const coloured = await inTerminal(`webjobs scrape ${site.at('/a')}`, { NO_COLOR: '' });
    expect(coloured.stdout).toMatch(SGR_COLOUR);
    const plain = await inTerminal(`webjobs scrape ${site.at('/a')}`, { NO_COLOR: '1' });
    expect(plain.stdout).toMatch(SPINNER_TEXT);
    expect(plain.stdout).not.toMatch(SGR_COLOUR);
  });

  it('-q shows nothing but the data', async () => {
    const result = await inTerminal(`webjobs batch ${site.at('/a')} ${site.at('/missing')} -q`);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/Scraping|pages scraped|\x1b\[\?25l/);
    expect(result.stdout).toMatch(/^==> \[1\/2\]/);
  });
});
