/** "1 page", "2 pages": a count and its noun, as a person writes them (issue 56: "1 pages scraped"). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
