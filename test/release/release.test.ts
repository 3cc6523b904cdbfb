/**
 * The release check (issue 37, `npm run test:release`, run by .ci/run): the package
 * as users get it. `npm pack`, then what the tarball holds and which packages its code
 * loads; then `npm install -g --omit=dev` of the tarball into an empty prefix, and the
 * INSTALLED `webjobs` run on every supported Node major against pages on 127.0.0.1:
 * a scrape over HTTP and one in Chromium with --include-tags, a batch from stdin,
 * `serve` answering /healthz, and `webjobs mcp` answering the MCP SDK's own client.
 * The installed command runs from a folder outside the checkout, with a user's
 * environment: nothing of the checkout's node_modules can stand in for a missing
 * dependency. Each step is one test named after it; one that fails says which
 * command did what.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import {
  describeRun,
  expectSuccess,
  installedPaths,
  leftRunning,
  loadedPackages,
  MAJORS,
  manifest,
  nodeBinDir,
  pack,
  processesMarked,
  ROOT,
  run,
  type Packed,
  type Run,
  unexpectedFiles,
} from './package.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'webjobs-release-'));
const prefix = path.join(work, 'prefix');
/** Every process a step starts carries this in its environment, and so does any Chromium below it. */
const marker = `WEBJOBS_RELEASE_CHECK=${randomUUID()}`;
const pkg = manifest();
const { bin, packageDir } = installedPaths(prefix, pkg.name);

let site: FixtureServer;
let packed: Packed | undefined;
let installed = false;

/** npm run by the check: Node 22 first on PATH, no download of Puppeteer's Chrome, nothing of the npm run that started us. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1', PATH: `${nodeBinDir(22)}:${process.env.PATH}` };
  for (const name of Object.keys(env)) {
    if (/^npm_(lifecycle_|package_|config_(local_prefix|prefix|global_prefix)$)/i.test(name)) delete env[name];
  }
  return env;
}

/** A user's environment on Node `major`: that node and the installed command on PATH, and little else. */
function userEnv(major: number): Record<string, string> {
  const home = path.join(work, `home-${major}`);
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    PATH: [nodeBinDir(major), path.join(prefix, 'bin'), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: process.env.HOME ?? home,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    WEBJOBS_HOME: home,
    [marker.split('=')[0]!]: marker.split('=')[1]!,
  };
  // Where CI names its browser, the installed package must find the same one.
  for (const name of ['WEBJOBS_CHROME', 'PUPPETEER_EXECUTABLE_PATH', 'TMPDIR']) {
    if (process.env[name]) env[name] = process.env[name]!;
  }
  return env;
}

function requireInstall(): void {
  if (!installed) throw new Error('skipped: the package is not installed (an earlier step, npm pack or npm install, failed)');
}

/** The installed `webjobs` (its shebang finds the major's node on PATH), run in a folder outside the checkout. */
function webjobs(major: number, args: string[], input?: string): Promise<Run> {
  requireInstall();
  return run(bin, args, { cwd: work, env: userEnv(major), input });
}

async function expectNothingLeft(step: string): Promise<void> {
  const alive = await leftRunning(marker);
  expect(alive, `${step} left processes running:\n${alive.join('\n')}`).toEqual([]);
}

const ARTICLE = 'The harbour lights come on at dusk, one pier at a time';
const OUTSIDE = 'Subscribe to the harbour newsletter for offers';
const SCRIPTED = 'Tide table rendered by the page script';

beforeAll(async () => {
  site = await startFixtureServer({
    '/article': (_req, res) =>
      sendHtml(
        res,
        html(
          `<header><p>${OUTSIDE}</p></header>` +
            `<article><h1>Harbour lights</h1><p>${ARTICLE}, from the ferry quay to the breakwater.</p>${articleText('harbours', 3)}` +
            `<p id="tide"></p><script>document.getElementById('tide').textContent = ${JSON.stringify(SCRIPTED)};</script></article>` +
            `<aside><p>${OUTSIDE}</p></aside>`,
          { title: 'Harbour lights' },
        ),
      ),
    '/a': (_req, res) => sendHtml(res, html(`<main><h1>Page A</h1>${articleText('apples', 3)}</main>`, { title: 'Page A' })),
    '/b': (_req, res) => sendHtml(res, html(`<main><h1>Page B</h1>${articleText('boats', 3)}</main>`, { title: 'Page B' })),
  });
});

afterAll(async () => {
  // A step that failed may have left its processes: end them, then the temporary prefix.
  for (const line of processesMarked(marker)) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await site?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the package', () => {
  it('npm pack: the tarball holds only what runs (bin/, dist/ without benchmarks or tests) and what documents it (package.json, README, docs/, LICENSE)', async () => {
    expect(existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')), 'dist/ is not built: run `npm run test:release`, which builds first').toBe(true);
    packed = await pack(work, npmEnv());
    const unexpected = unexpectedFiles(packed.files);
    expect(unexpected, `the tarball holds files that do not run:\n${unexpected.join('\n')}`).toEqual([]);
    for (const needed of ['package.json', 'README.md', 'LICENSE', 'docs/cli.md', 'bin/webjobs.js', 'dist/cli/main.js']) {
      expect(packed.files, `the tarball lacks ${needed}`).toContain(needed);
    }
  });

  it('every package the shipped code loads is a dependency (not a devDependency)', () => {
    if (!packed) throw new Error('skipped: npm pack failed');
    const dependencies = new Set(Object.keys(pkg.dependencies ?? {}));
    const missing = [...loadedPackages(packed.files)].filter(([name]) => !dependencies.has(name) && name !== pkg.name);
    const where = missing.map(([name, file]) => `${name} (loaded by ${file}${pkg.devDependencies?.[name] ? '; it is a devDependency' : ''})`);
    expect(where, `the shipped code loads packages that an install from the registry does not have:\n${where.join('\n')}`).toEqual([]);
  });

  it('npm install -g --omit=dev of the tarball into an empty prefix', async () => {
    if (!packed) throw new Error('skipped: npm pack failed');
    const result = await run('npm', ['install', '-g', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', packed.tarball], {
      cwd: work,
      env: npmEnv(),
      timeoutMs: 170_000,
    });
    expectSuccess('npm install -g --omit=dev of the tarball', result);
    expect(existsSync(bin), `npm install did not create ${bin}`).toBe(true);
    installed = true;
  });
});

describe.each(MAJORS)('the installed webjobs on Node %i', (major) => {
  it('runs on that Node', async () => {
    expect(existsSync(path.join(nodeBinDir(major), 'node')), `no Node ${major} at ${nodeBinDir(major)}: run bash .ci/setup`).toBe(true);
    requireInstall();
    const node = await run('node', ['-p', 'process.versions.node'], { cwd: work, env: userEnv(major) });
    expect(node.stdout.trim().split('.')[0], `node on the installed command's PATH is ${node.stdout.trim()}, not ${major}`).toBe(String(major));
    const version = await webjobs(major, ['--version']);
    expectSuccess('webjobs --version', version);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version);
  });

  it('scrape over HTTP with --include-tags article: the article as Markdown, nothing outside it', async () => {
    const result = await webjobs(major, ['scrape', site.at('/article'), '--engine', 'http', '--include-tags', 'article']);
    expectSuccess('webjobs scrape --engine http --include-tags article', result);
    expect(result.stdout, describeRun('scrape --engine http', result)).toContain(ARTICLE);
    expect(result.stdout).toContain('Paragraph 3 about harbours');
    expect(result.stdout).not.toContain(OUTSIDE);
    // Read as served: the page's script never ran.
    expect(result.stdout).not.toContain(SCRIPTED);
    await expectNothingLeft('scrape --engine http');
  });

  it('scrape in Chromium with --include-tags article: the rendered article', async () => {
    const result = await webjobs(major, ['scrape', site.at('/article'), '--engine', 'browser', '--include-tags', 'article']);
    expectSuccess('webjobs scrape --engine browser --include-tags article', result);
    expect(result.stdout, describeRun('scrape --engine browser', result)).toContain(ARTICLE);
    // Chromium ran the page's script.
    expect(result.stdout).toContain(SCRIPTED);
    expect(result.stdout).not.toContain(OUTSIDE);
    await expectNothingLeft('scrape --engine browser (Chromium)');
  });

  it('batch of URLs read from stdin: one JSON line a page (as each finishes)', async () => {
    const urls = [site.at('/a'), site.at('/b')];
    const result = await webjobs(major, ['batch', '-', '--jsonl'], `${urls.join('\n')}\n`);
    expectSuccess('webjobs batch - --jsonl (URLs on stdin)', result);
    const entries = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { url: string; status: string; markdown?: string })
      .sort((a, b) => a.url.localeCompare(b.url));
    expect(entries.map((e) => [e.url, e.status]), describeRun('webjobs batch - --jsonl', result)).toEqual(urls.map((url) => [url, 'completed']));
    expect(entries[0]!.markdown).toContain('Paragraph 1 about apples');
    expect(entries[1]!.markdown).toContain('Paragraph 1 about boats');
    await expectNothingLeft('batch');
  });

  it('serve answers /healthz, then stops on SIGTERM with exit code 0', async () => {
    requireInstall();
    const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0'], {
      cwd: work,
      env: { ...userEnv(major), WEBJOBS_API_KEYS: 'release-check-key-0123:scale' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const match = /listening on (http:\/\/\S+)/.exec(stderr);
          if (match) resolve(match[1]!);
        });
        void exited.then((code) => reject(new Error(`webjobs serve exited ${code} before listening:\n${stderr}`)));
      });
      // The command as installed runs with the young generation its first line asks for (bin/webjobs.js).
      expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=16');
      const response = await fetch(`${url}/healthz`);
      expect(response.status, `GET /healthz answered ${response.status}:\n${stderr}`).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, `webjobs serve did not stop cleanly on SIGTERM:\n${stderr}`).toBe(0);
    await expectNothingLeft('serve');
  });

  it('mcp answers an MCP client: tools listed, scrape called', async () => {
    requireInstall();
    // The page is on loopback, which the address guard of webjobs mcp refuses unless allowed.
    const transport = new StdioClientTransport({ command: bin, args: ['mcp', '--allow-host', new URL(site.at('/')).host], cwd: work, env: userEnv(major), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'webjobs-release-check', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name), `webjobs mcp listed:\n${stderr}`).toContain('scrape');
      const result = (await client.callTool({ name: 'scrape', arguments: { url: site.at('/article'), scrapeOptions: { includeTags: ['article'] } } })) as CallToolResult;
      const text = (result.content[0] as { text?: string } | undefined)?.text ?? '';
      expect(result.isError, `the scrape tool failed: ${text}\n${stderr}`).toBeFalsy();
      expect(text).toContain(ARTICLE);
      expect(text).not.toContain(OUTSIDE);
    } finally {
      await client.close();
    }
    await expectNothingLeft('mcp');
  });
});
