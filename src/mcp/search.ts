/**
 * The MCP search tool (issue 55): a search engine's results for a question, and,
 * with formats, each result's page read as batch_scrape reads it. Answered in the
 * call: Markdown text, at most RESULT_CHARS characters of it.
 */
import { UnsupportedError, UsageError } from '../api/errors.js';
import { objectSchema, type JsonSchema } from '../api/requestSchema.js';
import { SEARCH_LIMITS, TIME_RANGES, type SearchHit, type SearchRequest } from '../api/search.js';
import { thousands } from '../api/thousands.js';
import { FORMATS, type Format } from '../api/types.js';
import { RESULT_CHARS } from './results.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JobBackend } from '../api/backend.js';

/** What the tool uses of tools.ts's ToolContext (named here: tools.ts imports this file). */
interface SearchContext {
  backend: JobBackend;
  signal: AbortSignal;
  refuseUrls(urls: readonly string[]): void;
}

interface SearchArgs {
  query: string;
  limit?: number;
  formats?: Format[];
  includeDomains?: string[];
  excludeDomains?: string[];
  timeRange?: string;
}

const domains = (description: string): JsonSchema => ({ type: 'array', items: { type: 'string', minLength: 1 }, maxItems: SEARCH_LIMITS.maxDomains, description });

function searchSchema(): JsonSchema {
  return objectSchema<SearchArgs>(
    {
      query: { type: 'string', minLength: 1, maxLength: SEARCH_LIMITS.maxQueryLength, description: 'what to search the web for' },
      limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMITS.maxLimit, default: SEARCH_LIMITS.defaultLimit, description: 'results wanted at most' },
      formats: {
        type: 'array',
        items: { type: 'string', enum: FORMATS },
        uniqueItems: true,
        description: `read each result's page in these formats (${FORMATS.join(', ')}); leave out for the results alone (title, URL, snippet)`,
      },
      includeDomains: domains('only results on these domains (example.com also takes its subdomains)'),
      excludeDomains: domains('never results on these domains'),
      timeRange: { type: 'string', enum: TIME_RANGES, description: 'only results of the past day, week, month or year' },
    },
    ['query'],
  );
}

/** The request the tool's arguments ask for (validated by the back end). */
function requestOf(args: Record<string, unknown>): SearchRequest {
  const { formats, ...rest } = args as unknown as SearchArgs;
  if (formats !== undefined && !Array.isArray(formats)) throw new UsageError('formats must be an array of format names');
  return { ...(rest as SearchRequest), ...(formats && formats.length > 0 ? { scrapeOptions: { formats } } : {}) };
}

/** One result as Markdown: its rank, title, URL and snippet, then its page or why it has none. */
function resultText(hit: SearchHit): string {
  const head = `## ${hit.position}. ${hit.title || hit.url}\n${hit.url}\n\n${hit.description}`;
  if (hit.error) return `${head}\n\n(not read: ${hit.error})`;
  return hit.markdown !== undefined ? `${head}\n\n${hit.markdown}` : head;
}

export function searchTool(): {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: { readOnlyHint: boolean; openWorldHint: boolean };
  run(args: Record<string, unknown>, ctx: SearchContext): Promise<CallToolResult>;
} {
  return {
    name: 'search',
    title: 'Search the web',
    description: `Search the web for a question, not a URL: results as title, URL, snippet; with formats, each result's page is read too, as batch_scrape does. Answers in Markdown, at most ${thousands(RESULT_CHARS)} characters; ask for fewer results (limit) or narrow them (includeDomains) when pages are cut.`,
    inputSchema: searchSchema(),
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: async (args, ctx) => {
      if (!ctx.backend.search) throw UnsupportedError.of('search', 'this back end');
      const refuse = (url: string): string | undefined => {
        try {
          ctx.refuseUrls([url]);
          return undefined;
        } catch (err) {
          return (err as Error).message;
        }
      };
      const { web } = await ctx.backend.search(requestOf(args), { signal: ctx.signal, refuse });
      let text = web.length === 0 ? 'No results.' : '';
      for (const hit of web) {
        const part = `${text === '' ? '' : '\n\n'}${resultText(hit)}`;
        if (text.length + part.length > RESULT_CHARS) {
          text += `${part.slice(0, Math.max(0, RESULT_CHARS - text.length))}\n\n(cut at ${thousands(RESULT_CHARS)} characters: ask for fewer results)`;
          break;
        }
        text += part;
      }
      const listed = web.map(({ url, title, description, position, error }) => ({ url, title, description, position, ...(error ? { error } : {}) }));
      return { content: [{ type: 'text', text }], structuredContent: { web: listed } };
    },
  };
}
