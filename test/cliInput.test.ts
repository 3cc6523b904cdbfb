/**
 * What the user types and pipes in (issue 38 item 6, issue 43 item 13): durations
 * with units on every flag, URL lists read with a cap, and input echoed in
 * messages with its control characters escaped. All through the real CLI.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runShell, tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';

let site: FixtureServer;
const home = tempHome();
const env = { WEBJOBS_HOME: home };
const scratch = mkdtempSync(path.join(os.tmpdir(), 'webjobs-input-'));
const ESC = '\x1b';

beforeAll(async () => {
  site = await startFixtureServer({
    '/a': (_req, res) => sendHtml(res, html(`<article><h1>Alpha</h1>${articleText('alpha')}</article>`, { title: 'Alpha' })),
    // Answers never: only --timeout ends the page.
    '/hang': () => undefined,
  });
});

afterAll(async () => {
  await site?.close();
});

describe('durations take units', () => {
  it('--timeout 1s is 1,000 ms; a bare number stays milliseconds', async () => {
    const withUnit = await runCli(['scrape', site.at('/hang'), '--timeout', '1s', '--engine', 'http'], { env });
    expect(withUnit.code, withUnit.stderr).toBe(1);
    expect(withUnit.stderr).toMatch(/timed out after 1000 ms/);
    const bare = await runCli(['scrape', site.at('/hang'), '--timeout', '700', '--engine', 'http'], { env });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/timed out after 700 ms/);
  });

  it('--max-age 1h reuses the page; --wait-timeout 300ms gives up waiting with exit 5', async () => {
    const first = await runCli(['scrape', site.at('/a'), '--max-age', '1h', '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['scrape', site.at('/a'), '--max-age', '1h', '--json'], { env });
    expect(JSON.parse(second.stdout).data.metadata.cacheState).toBe('hit');
    const waited = await runCli(['scrape', site.at('/hang'), '--timeout', '2s', '--wait-timeout', '300ms', '--engine', 'http'], { env });
    expect(waited.code, waited.stderr).toBe(5);
  });

  it('a bad duration is one line naming the flag and the units, exit 2', async () => {
    for (const [flag, value, message] of [
      ['--timeout', '20x', /^webjobs: .*--timeout takes a duration such as 500ms, 20s, 2m, 2h or 7d; a bare number is milliseconds\.$/],
      ['--timeout', '10m', /--timeout must be at most 300,000 ms \(5m\), got 10m/],
      ['--wait-timeout', 'soon', /--wait-timeout takes a duration .* a bare number is seconds/],
      ['--max-age', '2y', /--max-age takes a duration/],
    ] as const) {
      const result = await runCli(['scrape', site.at('/a'), flag, value], { env });
      expect(result.code, `${flag} ${value}`).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(message);
    }
    const bare = await runCli(['prune', '--older-than', '7'], { env });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--older-than takes a duration such as 500ms, 20s, 2m, 2h or 7d\./);
  });

  it('--help says which units each duration flag takes', async () => {
    const { stdout } = await runCli(['batch', '--help'], { env, timeoutMs: 10_000 });
    expect(stdout).toMatch(/--timeout <duration>\s+time allowed to load each page: 500ms, 20s, 2m; a\s+bare number is ms/);
    expect(stdout).toMatch(/--delay <duration>/);
    expect(stdout).toMatch(/--wait-timeout <duration>[\s\S]*a bare number is\s+seconds/);
  });
});

describe('URL lists are read up to a cap', () => {
  it('--file /dev/zero fails at once, naming the byte cap', async () => {
    const result = await runCli(['batch', '--file', '/dev/zero'], { env, timeoutMs: 20_000 });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('webjobs: /dev/zero holds more than 10 MB; a URL list is read up to 10 MB (a batch takes at most 1,000 URLs)');
  });

  it('an endless stdin stops at the byte cap, and its writer is let go; a list of 1,001 URLs is refused by count', async () => {
    const result = await runShell(`yes ${site.at('/a')} | webjobs batch -; echo "exit $?"`, { env, timeoutMs: 20_000 });
    expect(result.stdout.trim()).toBe('exit 2');
    expect(result.stderr.trim()).toBe('webjobs: stdin holds more than 10 MB; a URL list is read up to 10 MB (a batch takes at most 1,000 URLs)');
    const list = path.join(scratch, 'long.txt');
    writeFileSync(list, `${Array.from({ length: 1001 }, (_, i) => site.at(`/a?n=${i}`)).join('\n')}\n`);
    const long = await runCli(['batch', '--file', list], { env });
    expect(long.code).toBe(2);
    expect(long.stderr.trim()).toBe(`webjobs: 1001 URLs given; a batch takes at most 1,000. Split the list into several batches.`);
  });
});

describe('input echoed in messages cannot write to the terminal', () => {
  it('invalid URL lines show their control characters escaped', async () => {
    const list = path.join(scratch, 'hostile.txt');
    writeFileSync(list, `${site.at('/a')}\nhttp://x${ESC}]0;pwned\x07/\n${ESC}[2Jnot a url\n\x9b31m\n`);
    const result = await runCli(['batch', '--file', list], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(result.stderr).toContain('\\x1b]0;pwned\\x07');
    expect(result.stderr).toContain('\\x1b[2Jnot a url');
    expect(result.stderr).toContain('\\x9b31m');
    expect(result.stderr).toMatch(/line 2:[\s\S]*line 3:[\s\S]*line 4:/);
  });

  it("commander's own messages (a bad argument, an unknown command) are escaped too", async () => {
    const badValue = await runCli(['scrape', site.at('/a'), '--timeout', `${ESC}]0;pwned\x07`], { env });
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).not.toContain(ESC);
    expect(badValue.stderr).toContain('\\x1b]0;pwned\\x07');
    const unknown = await runCli([`${ESC}[2J`], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).not.toContain(ESC);
  });
});
