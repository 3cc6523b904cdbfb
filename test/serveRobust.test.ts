/**
 * `webjobs serve` against requests meant to stop it or to hurt another key:
 * hostile crawl patterns, damaged job records, large records, and the smaller
 * holes of issue 10. Real server, real CLI, real Chromium where a page loads.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from './helpers/cli.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './helpers/fixtureServer.js';
import { startServe, type ServeProcess } from './helpers/serve.js';

const KEYS = { a: 'key-a-0123456789', b: 'key-b-0123456789' };
const home = tempHome();

let site: FixtureServer;
let server: ServeProcess;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

async function api(method: string, pathname: string, options: { key?: string; body?: unknown; raw?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'x-api-key': options.key ?? KEYS.a };
  const payload = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.url}${pathname}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

function startServer(): Promise<ServeProcess> {
  return startServe({
    args: ['--allow-host', new URL(site.url).host, '--max-jobs-per-key', '2', '--quiet'],
    env: { WEBJOBS_HOME: home, WEBJOBS_API_KEYS: `${KEYS.a}:scale,${KEYS.b}:scale` },
  });
}

beforeAll(async () => {
  const long = (n: number) => `/${'a'.repeat(n)}`;
  site = await startFixtureServer({
    '/start': (_req, res) =>
      sendHtml(res, html(`<article><h1>Start</h1>${articleText('start')}<a href="${long(40)}">40</a><a href="${long(60)}">60</a></article>`)),
    '/hang': () => new Promise(() => undefined),
  });
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
  await site?.close();
});

async function waitFinal(pathname: string, key = KEYS.a, during?: () => Promise<void>): Promise<string> {
  for (;;) {
    await during?.();
    const { body } = await api('GET', `${pathname}/status`, { key });
    if (['completed', 'failed', 'stopped'].includes(body.status)) return body.status;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('one request must not stop the service', () => {
  it('crawls with backtracking-prone include patterns to the end while /healthz keeps answering', async () => {
    const { status, body } = await api('POST', '/api/crawl', {
      body: { url: site.at('/start'), ignoreSitemap: true, includePatterns: ['**'.repeat(12) + 'x', '*a'.repeat(12) + 'b'] },
    });
    expect(status).toBe(200);
    const health = async () => {
      const answer = await fetch(`${server.url}/healthz`);
      expect(answer.status).toBe(200);
    };
    expect(await waitFinal(`/api/crawl/${body.jobId}`, KEYS.a, health)).toBe('completed');
    const result = await api('GET', `/api/crawl/${body.jobId}`);
    // Neither long path ends in x or b: only the start page is in the result.
    expect(result.body.data.map((e: { url: string }) => e.url)).toEqual([site.at('/start')]);
  });

  it('refuses more than 20 patterns, or one over 100 characters, with 400 naming the limit', async () => {
    const many = await api('POST', '/api/crawl', { body: { url: site.at('/start'), excludePatterns: Array(21).fill('/x/*') } });
    expect(many).toMatchObject({ status: 400, body: { message: 'request.excludePatterns: 21 patterns given, the limit is 20' } });
    const long = await api('POST', '/api/crawl', { body: { url: site.at('/start'), includePatterns: ['/ok', `/${'*a'.repeat(50)}`] } });
    expect(long).toMatchObject({ status: 400, body: { message: 'request.includePatterns: pattern 2 has 101 characters, the limit is 100' } });
  });
});
