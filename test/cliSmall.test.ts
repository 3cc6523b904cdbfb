/**
 * The smaller points of issue 38 item 10, through the real CLI: --output-dir
 * names in input order, --jsonl's index, `jobs` newest first, `wait`, shell
 * completion checked in the shells themselves, -V, help texts, and `mcp` started
 * at a terminal.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const scratch = mkdtempSync(path.join(os.tmpdir(), 'webjobs-small-'));

/** /late/ answers only once /late has been answered: the first URL of the list finishes last. */
let lateServed!: () => void;
const late = new Promise<void>((resolve) => (lateServed = resolve));

beforeAll(async () => {
  site = await startFixtureServer({
    '/late': (_req, res) => {
      sendHtml(res, html(`<article><h1>Second</h1>${articleText('second')}</article>`, { title: 'Second' }));
      lateServed();
    },
    '/late/': async (_req, res) => {
      await late;
      sendHtml(res, html(`<article><h1>First</h1>${articleText('first')}</article>`, { title: 'First' }));
    },
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>Alpha</h1>${articleText('alpha')}</article>`, { title: 'Alpha' })),
  });
});

afterAll(async () => {
  await site?.close();
});

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('batch output follows the list', () => {
  it('--output-dir gives a shared name to the first URL of the list, whichever finishes first; --jsonl lines carry their index', async () => {
    const dir = path.join(scratch, 'pages');
    const urls = [site.at('/late/'), site.at('/late')];
    const result = await runCli(['batch', ...urls, '--output-dir', dir, '--engine', 'http'], { env });
    expect(result.code, result.stderr).toBe(0);
    const name = readdirSync(dir).filter((f) => f.endsWith('.md')).sort();
    expect(name).toEqual(['127.0.0.1_' + new URL(site.url).port + '_late-2.md', '127.0.0.1_' + new URL(site.url).port + '_late.md']);
    const first = readFileSync(path.join(dir, name[1]!), 'utf8');
    expect(first).toContain('# First');
    const jsonl = await runCli(['batch', site.at('/a'), site.at('/late'), '--jsonl', '--engine', 'http'], { env });
    const lines = jsonl.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((l) => [l.index, l.url]).sort()).toEqual([
      [0, site.at('/a')],
      [1, site.at('/late')],
    ]);
  });
});

describe('jobs and wait', () => {
  it('jobs lists the newest first; wait waits for a --no-wait job and exits as the job command would', async () => {
    const fresh = { WEBJOBS_HOME: tempHome() };
    const first = (await runCli(['scrape', site.at('/a'), '--json'], { env: fresh })).stdout;
    const firstId = JSON.parse(first).jobId as string;
    const started = await runCli(['batch', site.at('/a'), 'http://127.0.0.1:9/refused', '--no-wait'], { env: fresh });
    const batchId = started.stdout.trim();
    const waited = await runCli(['wait', batchId], { env: fresh });
    expect(waited.stdout).toBe('completed\n');
    expect(waited.code).toBe(3);
    expect(waited.stderr).toMatch(/1 of 2 pages failed/);
    const listed = await runCli(['jobs'], { env: fresh });
    expect(listed.stdout.trim().split('\n').map((line) => line.split(' ')[0])).toEqual([batchId, firstId]);
    const newest = await runCli(['jobs', '--limit', '1', '--json'], { env: fresh });
    expect(JSON.parse(newest.stdout).map((j: { jobId: string }) => j.jobId)).toEqual([batchId]);
    const done = await runCli(['wait', firstId.slice(0, 8), '--json'], { env: fresh });
    expect(done).toMatchObject({ code: 0, stdout: '{"status":"completed"}\n' });
    expect((await runCli(['wait', '3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d'], { env: fresh })).code).toBe(4);
  });
});

describe('shell completion, made from the command tree', () => {
  it('bash completes commands, options and their values', () => {
    const script = execFileSync(process.execPath, [BIN, 'completion', 'bash'], { encoding: 'utf8' });
    const file = path.join(scratch, 'webjobs.bash');
    writeFileSync(file, script);
    const complete = (...words: string[]) =>
      execFileSync('bash', ['-c', `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _webjobs; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' })
        .trim()
        .split('\n');
    expect(execFileSync('bash', ['-c', `source ${file}; complete -p webjobs`], { encoding: 'utf8' })).toMatch(/-F _webjobs webjobs/);
    expect(complete('webjobs', '')).toEqual(expect.arrayContaining(['scrape', 'batch', 'crawl', 'wait', 'completion', 'jobs', '--version']));
    expect(complete('webjobs', 'sc')).toEqual(['scrape']);
    expect(complete('webjobs', 'scrape', '--eng')).toEqual(['--engine']);
    expect(complete('webjobs', 'batch', '--engine', '')).toEqual(['auto', 'http', 'browser']);
    expect(complete('webjobs', 'crawl', '--formats', 'mark')).toEqual(['markdown']);
    expect(complete('webjobs', 'completion', 'f')).toEqual(['fish']);
  });

  it.skipIf(!has('fish'))('fish completes them too', () => {
    const script = execFileSync(process.execPath, [BIN, 'completion', 'fish'], { encoding: 'utf8' });
    const file = path.join(scratch, 'webjobs.fish');
    writeFileSync(file, script);
    const out = execFileSync('fish', ['-c', `source ${file}; complete -C 'webjobs sc'; complete -C 'webjobs batch --engine '`], { encoding: 'utf8' });
    expect(out).toMatch(/^scrape\t/m);
    expect(out).toMatch(/^browser\t/m);
  });

  it.skipIf(!has('zsh'))('zsh reads its script', () => {
    const script = execFileSync(process.execPath, [BIN, 'completion', 'zsh'], { encoding: 'utf8' });
    const file = path.join(scratch, '_webjobs');
    writeFileSync(file, script);
    expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
    expect(script).toMatch(/'wait:wait for a job to end/);
  });

  it('an unknown shell is refused, exit 2', async () => {
    const result = await runCli(['completion', 'powershell'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/choose a shell: bash, zsh, fish/);
  });
});

describe('help, version and mcp at a terminal', () => {
  it('-V prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect((await runCli(['-V'], { env })).stdout).toBe(`${version}\n`);
  });

  it('descriptions wrap as paragraphs: no line cut short in the middle of a sentence; scrape does not claim a browser', async () => {
    for (const command of ['result', 'prune', 'scrape', 'wait']) {
      // Not at a terminal, commander wraps at 80 columns.
      const { stdout } = await runCli([command, '--help'], { env });
      const description = stdout.split('\n\n')[1]!.split('\n');
      description.slice(0, -1).forEach((line, i) => {
        expect(line.length + (description[i + 1]!.split(' ')[0]!.length + 1), `${command}: "${line}"`).toBeGreaterThan(80);
      });
    }
    const scrape = await runCli(['scrape', '--help'], { env });
    expect(scrape.stdout).not.toMatch(/in a headless browser/);
  });

  it.skipIf(!has('script'))('webjobs mcp started at a terminal says what it is in one line on stderr, and quits at Ctrl-D', async () => {
    // script(1) gives webjobs a terminal; the ^D sent after the line arrives is end of input there.
    const result = await runShell(`(sleep 2; printf '\\004') | script -qec "${process.execPath} ${BIN} mcp" /dev/null`, { env, timeoutMs: 30_000 });
    expect(result.code).toBe(0);
    const lines = result.stdout.split(/\r?\n/).filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^webjobs mcp: an MCP server for agents and editors, speaking JSON-RPC on stdin\/stdout; add .* to your MCP client/);
    // Not at a terminal: nothing but the protocol.
    const piped = await runCli(['mcp'], { env });
    expect(piped.stderr).not.toMatch(/an MCP server for agents/);
  });
});
