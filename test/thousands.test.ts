/** thousands() writes numbers as toLocaleString('en-US') does, without loading ICU's data at start-up. */
import { describe, expect, it } from 'vitest';
import { thousands } from '../src/api/thousands.js';

describe('thousands', () => {
  it('matches en-US over whole numbers, fractions and negatives', () => {
    const numbers = [0, 1, 12, 999, 1000, 1001, 9999, 10_000, 123_456, 1_000_000, 9_007_199_254_740, -1, -1000, -1_234_567, 0.5, 2500.5, 10_000.25, 1 / 3, 2 / 3, 0.0005, 0.0015, 1234.5678, 60.000001];
    for (let n = 1; n < 1e15; n *= 7) numbers.push(n, n + 0.1, -n);
    for (const n of numbers) expect(thousands(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});
