/**
 * A URL's user name and password are for fetching it, never for showing or
 * storing: job records, page entries, error messages and listings carry every
 * URL without them. (The request kept in meta.json keeps them, as the job
 * needs them to run, and is never returned by the API.)
 */
import type { PageData, PageEntry } from './types.js';

/** The user-information part of an http(s) URL: everything between "//" and "@" that cannot be host or path. */
const USER_INFO = /\b(https?:\/\/)[^\s/?#@"'<>\\]*@/gi;

/** `text` with the user name and password of every http(s) URL in it removed. */
export function redactCredentials(text: string): string {
  return text.replace(USER_INFO, '$1');
}

function redactMetadata(data: PageData): void {
  for (const [name, value] of Object.entries(data.metadata ?? {})) {
    if (typeof value === 'string') data.metadata[name] = redactCredentials(value);
  }
}

/** A batch or crawl page entry as it may be stored. */
export function redactEntry(entry: PageEntry): PageEntry {
  const redacted: PageEntry = { ...entry, url: redactCredentials(entry.url), metadata: { ...entry.metadata } };
  if (redacted.error !== null) redacted.error = redactCredentials(redacted.error);
  redactMetadata(redacted);
  return redacted;
}

/** Redacts a job record in place: its error, and the metadata of a scrape's page. */
export function redactRecord(record: { error?: string; data?: unknown }): void {
  if (typeof record.error === 'string') record.error = redactCredentials(record.error);
  const data = record.data as Partial<PageData> | undefined;
  if (data && typeof data === 'object' && data.metadata && typeof data.metadata === 'object') redactMetadata(data as PageData);
}
