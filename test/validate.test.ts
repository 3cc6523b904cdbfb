/** Request validation shared by the CLI and `serve`. */
import { describe, expect, it } from 'vitest';
import { LimitError, UsageError } from '../src/api/errors.js';
import { LOCAL_LIMITS, validateJobId, validatePageQuery, validateRequest } from '../src/api/validate.js';

describe('validateRequest', () => {
  it('applies the documented defaults to a scrape request', () => {
    expect(validateRequest('scrape', { url: 'https://example.com' })).toEqual({
      url: 'https://example.com/',
      scrapeOptions: {
        formats: ['markdown'],
        onlyMainContent: true,
        timeout: 30000,
        waitFor: 0,
        waitUntil: 'load',
        includeTags: [],
        excludeTags: [],
      },
      sessionOptions: { useProxy: false, solveCaptchas: false },
    });
  });

  it('takes the engine extension, leaving it out when not given', () => {
    const request = validateRequest('scrape', { url: 'https://example.com', scrapeOptions: { engine: 'http' } });
    expect(request.scrapeOptions?.engine).toBe('http');
    expect(() => validateRequest('batch', { urls: ['https://example.com'], scrapeOptions: { engine: 'curl' } })).toThrow(
      /scrapeOptions.engine must be one of auto, http, browser/,
    );
  });

  it('refuses bad URLs, schemes, formats and unknown fields with the field named', () => {
    expect(() => validateRequest('scrape', { url: 'nope' })).toThrow(/url: "nope" is not a valid URL/);
    expect(() => validateRequest('scrape', { url: 'file:///etc/passwd' })).toThrow(/http or https/);
    expect(() => validateRequest('scrape', { url: 'https://a.example', scrapeOptions: { formats: ['pdf'] } })).toThrow(
      /scrapeOptions.formats: unknown format "pdf"/,
    );
    expect(() => validateRequest('scrape', { url: 'https://a.example', colour: 'red' })).toThrow(/unknown field "colour"/);
    expect(() => validateRequest('scrape', { url: 'https://a.example', scrapeOptions: { timeout: '5' } })).toThrow(UsageError);
  });

  it('enforces the spec limits: 1,000 URLs, maxPages 1 to 100', () => {
    const urls = Array.from({ length: 1001 }, (_, i) => `https://example.com/${i}`);
    expect(() => validateRequest('batch', { urls })).toThrow(LimitError);
    expect(() => validateRequest('batch', { urls })).toThrow(/1001 URLs given, the limit is 1,000/);
    expect(validateRequest('batch', { urls: urls.slice(0, 1000) }).urls).toHaveLength(1000);
    expect(() => validateRequest('crawl', { url: 'https://a.example', maxPages: 101 })).toThrow(LimitError);
    expect(() => validateRequest('crawl', { url: 'https://a.example', maxPages: 0 })).toThrow(LimitError);
    expect(validateRequest('crawl', { url: 'https://a.example' })).toMatchObject({ maxPages: 10, followLinks: true, ignoreSitemap: false });
  });

  it("keeps the spec's maxPages 100 by default (serve), and allows 100,000 with this machine's limits", () => {
    expect(() => validateRequest('crawl', { url: 'https://a.example', maxPages: 5000 })).toThrow(/between 1 and 100/);
    expect(validateRequest('crawl', { url: 'https://a.example', maxPages: 100_000 }, LOCAL_LIMITS).maxPages).toBe(100_000);
    expect(() => validateRequest('crawl', { url: 'https://a.example', maxPages: 100_001 }, LOCAL_LIMITS)).toThrow(LimitError);
  });

  it('takes the delay extension on batch and crawl, 0 to 60,000 ms', () => {
    expect(validateRequest('batch', { urls: ['https://a.example'], delay: 500 }).delay).toBe(500);
    expect(validateRequest('crawl', { url: 'https://a.example', delay: 0 }).delay).toBe(0);
    expect(() => validateRequest('crawl', { url: 'https://a.example', delay: 60_001 })).toThrow(LimitError);
    expect(() => validateRequest('batch', { urls: ['https://a.example'], delay: 1.5 })).toThrow(UsageError);
    expect(() => validateRequest('scrape', { url: 'https://a.example', delay: 5 })).toThrow(/unknown field "delay"/);
  });

  it('lists every invalid URL of a batch with its position', () => {
    expect(() => validateRequest('batch', { urls: ['https://ok.example', 'bad one', 'https://ok.example/2', 'mailto:x@y'] })).toThrow(
      /2 invalid URL\(s\): item 2: "bad one" is not a valid URL.*item 4: .* must use http or https/,
    );
  });

  it('checks session options: country code shape, and a country needs the proxy', () => {
    expect(() => validateRequest('scrape', { url: 'https://a.example', sessionOptions: { useProxy: true, proxyCountry: 'usa' } })).toThrow(
      /two-letter uppercase/,
    );
    expect(() => validateRequest('scrape', { url: 'https://a.example', sessionOptions: { proxyCountry: 'US' } })).toThrow(/needs useProxy/);
  });

  it('needs a schema or a prompt for extract', () => {
    expect(() => validateRequest('extract', { urls: ['https://a.example'] })).toThrow(/schema, a prompt, or both/);
    expect(validateRequest('extract', { urls: ['https://a.example'], prompt: 'get the title' }).prompt).toBe('get the title');
  });
});

describe('ids and paging', () => {
  it('accepts UUIDs only', () => {
    expect(validateJobId('3F2B6C1E-8D4A-4B7E-9C1A-2E5F7A9B0C3D')).toBe('3f2b6c1e-8d4a-4b7e-9c1a-2e5f7a9b0c3d');
    expect(() => validateJobId('../../etc')).toThrow(/is not a job id/);
  });

  it('pages from 1 with a bounded batch size', () => {
    expect(validatePageQuery({})).toEqual({ page: 1, batchSize: 100 });
    expect(validatePageQuery({ page: '3', batchSize: '10' })).toEqual({ page: 3, batchSize: 10 });
    expect(() => validatePageQuery({ page: '0' })).toThrow(/page must be/);
    expect(() => validatePageQuery({ batchSize: '5000' })).toThrow(/batchSize must be/);
  });
});
