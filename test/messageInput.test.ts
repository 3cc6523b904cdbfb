/**
 * User input quoted in a message has its line feeds escaped (api/quote.ts, issue 54 finding 6): a value
 * with a line break cannot print a line of its own that passes for a message of webjobs. Each message
 * that quotes input, given a value with "\nwebjobs: forged" in it, stays one line with the break as \n.
 */
import { describe, expect, it } from 'vitest';
import { runCli, tempHome } from './helpers/cli.js';

const env = { WEBJOBS_HOME: tempHome() };
const FORGED = '\nwebjobs: forged';
const URL_OK = 'http://127.0.0.1:9/page';

const cases: [string, string[]][] = [
  ['a URL', ['scrape', `http://a${FORGED}`]],
  ['--formats', ['scrape', URL_OK, '--formats', `markdown${FORGED}`]],
  ['--include-tags', ['scrape', URL_OK, '--include-tags', `zz${FORGED}`]],
  ['--engine', ['scrape', URL_OK, '--engine', `http${FORGED}`]],
  ['--timeout', ['scrape', URL_OK, '--timeout', `5${FORGED}`]],
  ['a job id given to status', ['status', `abc${FORGED}`]],
  ['a header name given with -H', ['scrape', URL_OK, '-H', `X-Name${FORGED}: value`]],
];

describe('a line break in quoted input', () => {
  it.concurrent.each(cases)('is escaped in the message for %s', async (_what, args) => {
    const result = await runCli(args, { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('webjobs:')), result.stderr).toHaveLength(1);
    // The header's name ends at the first colon: "X-Name\nwebjobs".
    expect(result.stderr).toContain('\\nwebjobs');
  });
});
