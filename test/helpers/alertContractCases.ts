/**
 * Change tracking's alert on both stores (issue 56: an alert is owed until it is delivered): a page a job found
 * changed is "reported" only when that job completes. A job stopped before its end (cancelled here; killed, on
 * either store, is the same) leaves the change to the next run, which finds it changed again; the run after that
 * finds it the same. On the file store the job's completion commits the history (jobs/historyCommit.ts); on
 * PostgreSQL, whose workers run pages apart from the job's end, the completion's transaction does
 * (pg/historyOwed.ts). Run by remoteSuite.ts against both stores, each local and remote.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from './cli.js';
import type { ContractTarget } from './contractCases.js';
import { articleText, html, sendHtml, startFixtureServer, type FixtureServer } from './fixtureServer.js';
import { until } from './resumeSite.js';

const TRACK = ['--formats', 'markdown,changeTracking'];

const changeStatuses = (run: CliResult) => (JSON.parse(run.stdout) as { data: { changeTracking?: { changeStatus: string } }[] }).data.map((e) => e.changeTracking?.changeStatus);

export function alertContractCases(target: ContractTarget): void {
  let site: FixtureServer;
  /** The word /watched is about: a new one is a change. */
  let word = 'first';
  /** Requests of /hold, never answered until the end: the job that asks for it cannot complete. */
  const held: http.ServerResponse[] = [];

  beforeAll(async () => {
    site = await startFixtureServer({
      '/watched': (_req, res) => sendHtml(res, html(`<article><h1>Watched</h1>${articleText(`the ${word} news`)}</article>`, { title: 'Watched' })),
      '/hold': (_req, res) => void held.push(res),
    });
  });

  afterAll(async () => {
    for (const res of held) res.destroy();
    await site?.close();
  });

  describe('the contract: an alert is owed until a completed job reports it', () => {
    it('a change found by a job stopped before its end is reported by the next job that completes, once', async () => {
      const watched = ['batch', site.at('/watched'), ...TRACK, '--json'];
      for (const run of [target.local, target.remote]) {
        const first = await run(watched);
        expect(first.code, first.stderr).toBe(0);
        expect(changeStatuses(first)).toEqual(['new']);
      }
      word = 'second';
      for (const run of [target.local, target.remote]) {
        // /watched found changed and stored; /hold keeps the job from its end, and it is stopped there.
        const started = await run(['batch', site.at('/watched'), site.at('/hold'), ...TRACK, '--no-wait']);
        const jobId = started.stdout.trim();
        expect(started.code, started.stderr).toBe(0);
        await until(
          async () => /^webjobs: 1 page completed, 0 failed, 1 changed$/m.test((await run(['status', jobId])).stderr),
          () => `job ${jobId} with /watched stored as changed`,
          120_000,
        );
        expect((await run(['cancel', jobId])).stdout.trim()).toBe('stopped');
        const next = await run(watched);
        expect(next.code, next.stderr).toBe(0);
        expect(changeStatuses(next)).toEqual(['changed']);
        const after = await run(watched);
        expect(changeStatuses(after)).toEqual(['same']);
      }
    }, 300_000);
  });
}
