/**
 * The shell examples of the README and of docs/*.md, as a script would copy them,
 * run against a fixture site. They are read from the ```sh blocks at test time, so an
 * example that stops working, or a new one nobody ran, fails here. The links between
 * those files, and to their headings, are checked too.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';
import { actionRoutes } from './helpers/actionSite.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** README.md, then every docs/*.md, as paths relative to the repository. */
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

/** Sections whose examples are run, and those that are not, with why. Every ```sh block is in one of them. */
const RUN = [
  'At a terminal',
  'A saved page',
  'In scripts',
  'In cron',
  'Many pages to files: batch, crawl, map',
  'Jobs on a service: --remote',
  'webjobs batch',
  'webjobs crawl',
  // Runs right after crawl: its <jobId> is the newest job, a crawl, for `result --output-dir`.
  'Jobs and where they live',
  'Remote use and asynchronous jobs',
  'webjobs map',
  'Cache: --max-age',
  'Change tracking: what changed since the last run',
  'More formats: rawHtml, screenshot, PDF documents',
  'Structured data with no model',
  'Pages that need a click, a scroll or a login',
];
const NOT_RUN: Record<string, string> = {
  webjobs: 'setup and npm test: the machine, not webjobs',
  'A service for a team: serve': 'starts a long-running server (test/server.test.ts covers serve; the examples of --remote run against one)',
  'Structured data: extract': 'needs the Messages API (test/extract.test.ts runs extract against a loopback one)',
  Install: 'installs the package globally; npm run test:release installs the packed tarball and runs it',
  'Running webjobs as a service': 'starts a long-running server (test/server.test.ts covers serve)',
  'Running on several machines': 'needs PostgreSQL and long-running serve and worker processes (test/postgres.test.ts covers them)',
  'Proxies and CAPTCHAs': 'needs a proxy and a solver (test/session.test.ts)',
  'Old jobs and failed pages': 'deletes and reruns jobs of a store with history; test/prune.test.ts runs prune and retry',
  'Resuming a stopped or interrupted job': 'needs a job stopped or killed part way; test/resume.test.ts and test/resumeRemote.test.ts kill and resume them',
  'For agents: chunks, token budgets, llms.txt': 'names example.com and a URL list; test/agents/agentsCli.test.ts and llmsTxt.test.ts run each flag and llmstxt against fixture sites',
  'Pages behind a login': 'names sites with a login; test/access.test.ts runs each flag against fixture sites',
  'Extract structured data with a language model': 'needs the Messages API (test/extract.test.ts runs extract against a loopback one)',
  'The json format': 'names a shop and a list of its pages; test/jsonFormat.test.ts runs --formats json with --schema against fixture shop pages, and the README runs one',
  'Local models: Ollama and other OpenAI-compatible servers': 'needs Ollama and a model pulled into it (test/extractOpenAi.test.ts runs extract against a loopback Chat Completions API)',
  'Engines: HTTP or the browser': 'names sites outside this machine; test/engines.test.ts runs each engine and auto rule against fixture pages',
  Development: 'npm scripts',
  'Webhooks: POSTs on job events': 'needs a running serve and a receiver; test/webhooks.test.ts runs the receiver of this section against serve',
  'Search the web: webjobs search': 'needs a search engine; test/search.test.ts runs every option against loopback stand-ins of SearXNG and Brave',
  'A SearXNG of your own': 'runs a container',
  'Start from a question: search': 'needs a search engine; test/search.test.ts runs search against loopback stand-ins of SearXNG and Brave',
};

interface Block {
  /** README.md or docs/NAME.md */
  file: string;
  section: string;
  text: string;
}

/** ```sh blocks with the heading they sit under. */
function shellBlocks(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let current: string[] | undefined;
  for (const line of markdown.split('\n')) {
    if (current) {
      if (line.startsWith('```')) {
        blocks.push({ file, section, text: current.join('\n') });
        current = undefined;
      } else current.push(line);
    } else if (/^#{1,6} /.test(line)) section = line.replace(/^#+ /, '').trim();
    else if (line.trim() === '```sh') current = [];
  }
  return blocks;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen; a repeated one gets -1, -2... */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inBlock = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inBlock = !inBlock;
    if (inBlock || !/^#{1,6} /.test(line)) continue;
    const base = line
      .replace(/^#+ /, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Links to another file of the repository or to a heading (`](docs/cli.md#webjobs-batch)`, `](#exit-codes)`), outside code. */
function localLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

/** A usage synopsis such as `webjobs batch [urls...] [--file FILE | -]`: documentation, not an example. */
const isSynopsis = (block: Block) => /^webjobs \w+ (<\w+>|\[)/.test(block.text.trim());

/**
 * Sections that read what another left in its home and folder, run after it in them: `<jobId>`, the
 * newest job, is the crawl's. Every other section has a home and a folder of its own.
 */
const AFTER: Record<string, string> = { 'Jobs and where they live': 'webjobs crawl' };

/** Sections run side by side, at most this many at once (their examples wait on pages, browsers and jobs). */
const AT_ONCE = 3;

let site: FixtureServer;
let serve: ServeProcess;
const KEY = 'k_live_3f9a';

/** Where a section's examples run: its WEBJOBS_HOME and its folder (the README's /srv under it). */
interface Place {
  home: string;
  work: string;
}

const places: Place[] = [];

/** A fresh home and folder, holding the lists the examples read. */
function newPlace(): Place {
  const work = mkdtempSync(path.join(os.tmpdir(), 'webjobs-readme-'));
  mkdirSync(path.join(work, 'srv'));
  writeFileSync(path.join(work, 'urls.txt'), `# pages to keep\n${site.url}/a\n${site.url}/b\n`);
  // The cron example's list has a page that cannot load, so its "some pages failed" branch runs.
  writeFileSync(path.join(work, 'srv', 'urls.txt'), `${site.url}/a\nhttp://127.0.0.1:1/refused\n`);
  const place = { home: tempHome(), work };
  places.push(place);
  return place;
}

/** At most `limit` calls of `run` at once; the others wait their turn, in order. */
function limited(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** The README's placeholders made real: the fixture site, the test's server, folders under `work`. */
function localize(script: string, work: string): string {
  return script
    .replace(/https:\/\/jobs\.example\.com/g, serve.url)
    .replace(/https:\/\/example\.com/g, site.url)
    .replace(/^([0-9*/,-]+\s+){5}/gm, '') // a crontab line's schedule
    .replace(/\/var\/log\/webjobs\.log/g, path.join(work, 'webjobs.log'))
    .replace(/\/srv\b/g, path.join(work, 'srv'))
    .replace(/\| mail -s "[^"]*" \S+/g, `> ${path.join(work, 'mail.txt')}`)
    .replace(/<jobId>/g, `"$(webjobs jobs --json | jq -r '.[0].jobId')"`); // the newest job
}

/**
 * One script per block: each logical line (continuations joined) must exit 0,
 * pipelines included (pipefail), or the script stops naming it.
 */
function scriptOf(block: Block, work: string): string {
  const lines = block.text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const checked = lines.map((line) => {
    const local = localize(line, work);
    return `${local}\n__rc=$?; if [ $__rc -ne 0 ]; then echo "README example exited $__rc: ${line.replace(/[\\"$`]/g, '\\$&')}" >&2; exit 1; fi`;
  });
  return ['set -o pipefail', `cd ${JSON.stringify(work)}`, ...checked].join('\n');
}

beforeAll(async () => {
  // Every path is a small article linking to a few others, so crawls and batches have something to find.
  // The pages of the page-action examples ("Load more", an endless feed, a login): test/helpers/actionSite.ts.
  site = await startFixtureServer(actionRoutes(), (req, res) => {
    const title = `Page ${req.url}`;
    const links = ['/a', '/b', '/docs/one', '/docs/two', '/status'].map((href) => `<a href="${href}">${href}</a>`).join(' ');
    // Its schema.org data, for the examples of structured data with no model.
    const head = `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Article', headline: title, author: { '@type': 'Person', name: 'Ada Lovelace' } })}</script>`;
    sendHtml(res, html(`<main><article><h1>${title}</h1>${articleText(title, 4)}<p>${links}</p></article></main>`, { title, head }));
  });
  serve = await startServe({ args: ['--allow-private', '--quiet'], env: { WEBJOBS_HOME: tempHome(), WEBJOBS_API_KEYS: `${KEY}:scale` } });
});

afterAll(async () => {
  await serve?.stop();
  await site?.close();
  for (const { home, work } of places) for (const dir of [home, work]) rmSync(dir, { recursive: true, force: true });
});

const blocks = DOCS.flatMap((file) => shellBlocks(file, readFileSync(path.join(ROOT, file), 'utf8')));

describe('README and docs/ links', () => {
  it.each(DOCS)('%s: every link to a file or a heading of these files resolves', (file) => {
    const broken: string[] = [];
    for (const target of localLinks(readFileSync(path.join(ROOT, file), 'utf8'))) {
      const [where, anchor] = target.split('#') as [string, string | undefined];
      const linked = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
      let text: string;
      try {
        text = readFileSync(path.join(ROOT, linked), 'utf8');
      } catch {
        broken.push(`${target}: no file ${linked}`);
        continue;
      }
      if (anchor !== undefined && !anchorsOf(text).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${linked}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('README and docs/ shell examples', () => {
  it('every ```sh block is either run here or skipped for a stated reason', () => {
    const unknown = blocks.filter((b) => !RUN.includes(b.section) && !(b.section in NOT_RUN)).map((b) => `${b.file}: ${b.section}`);
    expect(unknown).toEqual([]);
    for (const section of RUN) expect(blocks.some((b) => b.section === section), section).toBe(true);
  });

  const turn = limited(AT_ONCE);
  /** Each section's place and the end of its run (a section AFTER another waits for it, then takes its place). */
  const runs = new Map<string, Promise<Place>>();
  const ran = (section: string): Promise<Place> => {
    let run = runs.get(section);
    if (!run) {
      const before = AFTER[section];
      run = (before ? ran(before) : Promise.resolve(newPlace())).then((place) => turn(() => runSection(section, place)));
      runs.set(section, run);
    }
    return run;
  };

  /** Runs the section's blocks one after another in `place`; each must exit 0. */
  async function runSection(section: string, { home, work }: Place): Promise<Place> {
    for (const block of blocks.filter((b) => b.section === section && !isSynopsis(b))) {
      // No model server: extract --schema is filled from the page's structured data, whatever this machine has set.
      const result = await runShell(scriptOf(block, work), { env: { WEBJOBS_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' }, timeoutMs: 240_000 });
      expect(result.stderr, `${block.file}\n${block.text}`).not.toMatch(/README example exited|jq: error/);
      expect(result.code, `${block.file}\n${block.text}\n${result.stderr}`).toBe(0);
    }
    return { home, work };
  }

  // Side by side, AT_ONCE at most: a test's time runs while it waits its turn, hence the longer timeout.
  it.concurrent.for(RUN)('%s', async (section, { expect }) => {
    const { work } = await ran(section);
    if (section === 'In cron') {
      // The failed page of the list was mailed (here: written to mail.txt).
      expect(readFileSync(path.join(work, 'mail.txt'), 'utf8')).toBe('http://127.0.0.1:1/refused\n');
      expect(readFileSync(path.join(work, 'srv', 'status.md'), 'utf8')).toContain('Page /status');
      // The change-tracking example: the page was new (exit 10), so its line kept a file saying so.
      expect(JSON.parse(readFileSync(path.join(work, 'srv', 'pricing.json'), 'utf8')).data.changeTracking.changeStatus).toBe('new');
      expect(readFileSync(path.join(work, 'srv', 'pricing.diff'), 'utf8')).toBe('a new page\n');
    }
  }, 600_000);
});
