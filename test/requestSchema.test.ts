/**
 * The request schemas the MCP tools publish (src/api/requestSchema.ts) against the
 * validation every back end applies (src/api/validate.ts): the same fields at every
 * level, so a field added to one and not the other fails here. The types keep the
 * schemas and the request types in step at compile time.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/api/errors.js';
import { requestSchema, type JsonSchema } from '../src/api/requestSchema.js';
import { JOB_KINDS, type JobKind } from '../src/api/types.js';
import { LOCAL_LIMITS, SERVICE_LIMITS, validateRequest } from '../src/api/validate.js';
import { LIMITS } from '../src/api/limits.js';

const minimal: Record<JobKind, Record<string, unknown>> = {
  scrape: { url: 'https://example.com/' },
  batch: { urls: ['https://example.com/'] },
  crawl: { url: 'https://example.com/' },
  extract: { urls: ['https://example.com/'], prompt: 'the title' },
};

/** The fields validate.ts allows in `request` (or in `request[nested]`), read from its refusal of an unknown one. */
function allowedFields(kind: JobKind, nested?: string): string[] {
  const request = nested ? { ...minimal[kind], [nested]: { zzUnknown: 1 } } : { ...minimal[kind], zzUnknown: 1 };
  try {
    validateRequest(kind, request, LOCAL_LIMITS);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    const allowed = /\(allowed: ([^)]*)\)/.exec((err as Error).message);
    expect(allowed, (err as Error).message).not.toBeNull();
    return allowed![1]!.split(', ').sort();
  }
  throw new Error(`validate accepted an unknown field in ${kind}`);
}

const keys = (schema: JsonSchema | undefined): string[] => Object.keys(schema?.properties ?? {}).sort();

describe('request schemas', () => {
  it.each(JOB_KINDS)('%s: the schema names the fields validation allows, at every level', (kind) => {
    const schema = requestSchema(kind, LOCAL_LIMITS);
    expect(keys(schema)).toEqual(allowedFields(kind));
    for (const nested of ['scrapeOptions', 'sessionOptions']) {
      if (schema.properties?.[nested]) expect(keys(schema.properties[nested]), nested).toEqual(allowedFields(kind, nested));
    }
  });

  it('carries the limits where the job runs', () => {
    expect(requestSchema('crawl', LOCAL_LIMITS).properties!.maxPages!.maximum).toBe(LIMITS.maxLocalCrawlPages);
    expect(requestSchema('crawl', SERVICE_LIMITS).properties!.maxPages!.maximum).toBe(LIMITS.maxCrawlPages);
    expect(requestSchema('extract').properties!.urls!.maxItems).toBe(LIMITS.maxExtractUrls);
  });
});
