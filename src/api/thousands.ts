/**
 * A number as en-US writes it, with commas between thousands (1,000; 2,500.5), without
 * Number.prototype.toLocaleString: its first call loads ICU's data, about 10 ms, which a
 * CLI command paid at start-up for one line of its help.
 */
export function thousands(n: number): string {
  const [whole, fraction] = String(Math.round(n * 1000) / 1000).split('.');
  return whole!.replace(/\B(?=(\d{3})+$)/g, ',') + (fraction ? `.${fraction}` : '');
}
