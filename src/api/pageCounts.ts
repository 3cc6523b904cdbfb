/**
 * A batch's or crawl's entries counted by what they are (`webjobs status` and `webjobs jobs`), and each entry's
 * kind in a few bits (its marks), which the file store keeps in pages.idx beside where the entry is, so that a
 * count of 100,000 entries reads the index and never an entry.
 */

/** The entries of a batch or crawl stored so far, by what they are: what `status` and `jobs` say, and `result` holds. */
export interface PageCounts {
  completed: number;
  failed: number;
  /** New or changed since the last run (the changeTracking format). */
  changed: number;
}

/** Whether an entry is new, changed or removed since the last run (the changeTracking format). */
export function changedPage(page: { changeTracking?: { changeStatus: string } } | undefined): boolean {
  const status = page?.changeTracking?.changeStatus;
  return status === 'new' || status === 'changed' || status === 'removed';
}

/** Marks are known (0: an entry stored before marks were kept, whose kind only its text says). */
const KNOWN = 1;
const COMPLETED = 2;
const FAILED = 4;
const CHANGED = 8;

/** An entry's marks: a number from 1 to 15. */
export function entryMarks(entry: { status?: string; changeTracking?: { changeStatus: string } }): number {
  return KNOWN | (entry.status === 'completed' ? COMPLETED : 0) | (entry.status === 'failed' ? FAILED : 0) | (changedPage(entry) ? CHANGED : 0);
}

/** Whether `marks` is an entry's marks as entryMarks gives them. */
export function isMarks(marks: number): boolean {
  return Number.isInteger(marks) && marks >= KNOWN && marks <= (KNOWN | COMPLETED | FAILED | CHANGED) && (marks & KNOWN) === KNOWN;
}

/** Adds the entry of `marks` to `counts`. */
export function countMarks(counts: PageCounts, marks: number): void {
  if (marks & COMPLETED) counts.completed++;
  if (marks & FAILED) counts.failed++;
  if (marks & CHANGED) counts.changed++;
}
