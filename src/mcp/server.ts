/**
 * `webjobs mcp`: the job interface as an MCP server over stdio. stdout carries
 * the protocol and nothing else; every failure of a call becomes a tool error
 * with our one-line message. When the client goes (stdin ends) or a signal
 * comes, the jobs this session started and still runs are cancelled, the back
 * end (browser) is closed, and the server ends.
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JobBackend } from '../api/backend.js';
import { WebjobsError } from '../api/errors.js';
import type { JobKind } from '../api/types.js';
import type { RequestLimits } from '../api/validate.js';
import { tools, type Tool, type ToolContext } from './tools.js';

export interface McpOptions {
  backend: JobBackend;
  limits: RequestLimits;
  version: string;
  /** The address guard's quick refusal of a job's URLs (local jobs, unless --allow-private); none with --remote. */
  refuseUrls?: (urls: readonly string[]) => void;
  /** What lifts the guard, said after a refusal it made (local jobs): the flags of `webjobs mcp`. */
  refusalHint?: string;
  /** The service's API key (--remote), to fetch screenshots with. */
  apiKey?: string;
  stdin?: Readable;
  stdout?: Writable;
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The address guard's words (engine/net/ssrf.ts), in a tool error or a page's error. */
const REFUSED = 'loopback, private, link-local or metadata address';

/** An answer that tells of the guard's refusal says, once, how to lift it. */
function withHint(result: CallToolResult, hint: string | undefined): CallToolResult {
  if (!hint) return result;
  const first = result.content.find((part) => part.type === 'text');
  if (!first || first.type !== 'text' || !first.text.includes(REFUSED) || first.text.includes(hint)) return result;
  first.text = `${first.text}\n\n${hint}`;
  return result;
}

/** An ajv error as our messages word them: the field by its path, what is wrong with it. */
function describe(error: ErrorObject): string {
  const at = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const field = (name: string) => (at ? `${at}.${name}` : name);
  switch (error.keyword) {
    case 'required':
      return `${field(String(error.params.missingProperty))} is required`;
    case 'additionalProperties': {
      const allowed = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return `${at ? `${at}: ` : ''}unknown field "${String(error.params.additionalProperty)}" (allowed: ${allowed.join(', ')})`;
    }
    case 'enum':
      return `${at} must be one of ${(error.params.allowedValues as string[]).join(', ')}`;
    default:
      return `${at || 'arguments'} ${error.message ?? 'is invalid'}`;
  }
}

function compile(list: Tool[]): Map<string, { tool: Tool; validate: ValidateFunction }> {
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: true });
  return new Map(list.map((tool) => [tool.name, { tool, validate: ajv.compile(tool.inputSchema) }]));
}

/** Serves until the client goes or a signal comes; then nothing of this session is left running. */
export async function serveMcp(options: McpOptions): Promise<void> {
  const { backend } = options;
  const registry = compile(tools(options.limits));
  const jobs = new Map<string, JobKind>();
  // Aborted when the session ends: calls under way then cancel their jobs, and none starts another.
  const session = new AbortController();
  const calls = new Set<Promise<unknown>>();
  const server = new Server({ name: 'webjobs', version: options.version }, { capabilities: { tools: {} } });
  // What the protocol layer cannot answer (a line that is not JSON-RPC): said on stderr, stdout stays the protocol's.
  server.onerror = (err) => process.stderr.write(`webjobs mcp: ${err.message}\n`);

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...registry.values()].map(({ tool }) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: 'object' },
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const entry = registry.get(request.params.name);
    if (!entry) return toolError(`unknown tool "${request.params.name}" (tools: ${[...registry.keys()].join(', ')})`);
    const args = request.params.arguments ?? {};
    if (!entry.validate(args)) return toolError(`invalid arguments: ${describe(entry.validate.errors![0]!)}`);
    if (session.signal.aborted) return toolError('webjobs mcp is shutting down');
    const progressToken = request.params._meta?.progressToken;
    const ctx: ToolContext = {
      backend,
      signal: AbortSignal.any([extra.signal, session.signal]),
      jobs,
      refuseUrls: options.refuseUrls ?? (() => undefined),
      apiKey: options.apiKey,
      progress: (progress, total, message) => {
        if (progressToken === undefined || extra.signal.aborted) return;
        void extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, ...(total !== undefined ? { total } : {}), message } })
          .catch(() => undefined);
      },
    };
    const call = entry.tool
      .run(args, ctx)
      .catch((err: unknown) => toolError(err instanceof WebjobsError ? err.message : `internal error: ${err instanceof Error ? err.message : String(err)}`))
      .then((result) => withHint(result, options.refusalHint));
    calls.add(call);
    return call.finally(() => calls.delete(call));
  });

  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const ended = new Promise<void>((resolve) => {
    for (const event of ['end', 'close']) stdin.once(event, () => resolve());
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  await ended;
  // Jobs still running belong to a client that is gone: cancel them (on the service too, with --remote),
  // also those whose call is still starting them, before the browser closes.
  session.abort(new Error('the MCP session ended'));
  await Promise.all([...jobs].map(([jobId, kind]) => backend.cancel(jobId, kind).catch(() => undefined)));
  await Promise.all(calls);
  await backend.close();
  await server.close().catch(() => undefined);
}
