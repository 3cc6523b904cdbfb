/** The progress line of batch and crawl (shown on a terminal only). */
import { describe, expect, it } from 'vitest';
import { describeProgress } from '../src/cli/manyPages.js';

describe('describeProgress', () => {
  it('a batch: done/total, rate and time left', () => {
    expect(describeProgress('batch', 200)({ status: 'running', done: 50, failed: 0 }, 25_000)).toBe('50/200 pages done · 2.0 pages/s · about 1m15s left');
    expect(describeProgress('batch', 200)({ status: 'running', done: 0, failed: 0 }, 1_000)).toBe('0/200 pages done · 0.0 pages/s');
  });

  it('a crawl: pages done and rate, never against --max-pages', () => {
    const line = describeProgress('crawl', 100)({ status: 'running', done: 33, failed: 2 }, 11_000);
    expect(line).toBe('33 pages crawled, 2 failed · 3.0 pages/s');
    expect(line).not.toContain('/100');
  });
});
