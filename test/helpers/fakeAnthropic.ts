/**
 * A small Anthropic Messages API on 127.0.0.1 for tests: POST /v1/messages answers
 * from a queue of canned replies that each test sets. It records every request it
 * receives and checks the shape webjobs must send (a tool, forced by tool_choice);
 * tests read `requests` to check the page text and the tool's input_schema.
 * Besides the API's answers, it can answer as the API does not: a tool call with
 * malformed input, or a gateway's page instead of a message (rawAnswer).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

export type Reply =
  | { kind: 'tool'; input: unknown; usage?: Usage; delayMs?: number }
  | { kind: 'text'; text: string; usage?: Usage }
  | { kind: 'error'; status: number; type: string; message: string }
  /** A message with these content blocks as they are, e.g. a tool_use whose input is a string. */
  | { kind: 'content'; content: unknown[] }
  /** Not the API's answer at all: what a gateway or a captive proxy on the way sends, with its own content type. */
  | { kind: 'raw'; status: number; contentType: string; body: string };

/** A reply, or a function of the request for replies that depend on what was sent. */
export type QueuedReply = Reply | ((request: ReceivedRequest) => Reply);

export const toolUse = (input: unknown, usage: Usage = { input_tokens: 100, output_tokens: 20 }, delayMs?: number): Reply => ({
  kind: 'tool',
  input,
  usage,
  ...(delayMs !== undefined ? { delayMs } : {}),
});
export const textOnly = (text: string): Reply => ({ kind: 'text', text });
/** A tool call whose input is not an object: JSON the model wrote as a string (cut short at max_tokens, say). */
export const toolUseWithInput = (input: unknown): Reply => ({ kind: 'content', content: [{ type: 'tool_use', id: 'toolu_fake_malformed', name: 'extract_data', input }] });
export const rawAnswer = (body: string, contentType = 'text/html; charset=utf-8', status = 200): Reply => ({ kind: 'raw', status, contentType, body });
export const apiError = (status: number, type: string, message: string): Reply => ({ kind: 'error', status, type, message });
export const overloaded = (): Reply => apiError(529, 'overloaded_error', 'Overloaded');
export const rateLimited = (): Reply => apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit');
export const serverError = (): Reply => apiError(500, 'api_error', 'Internal server error');

export interface FakeAnthropic {
  url: string;
  requests: ReceivedRequest[];
  /** Shape problems in what webjobs sent (no tool, tool not forced...): tests expect none. */
  problems: string[];
  queue: QueuedReply[];
  /** Answers when the queue is empty; undefined means a 500 that the client must not retry. */
  fallback: QueuedReply | undefined;
  reset(): void;
  close(): Promise<void>;
}

function checkShape(body: ReceivedRequest['body'], problems: string[]): void {
  const tools = body?.tools;
  const forced = body?.tool_choice;
  if (!Array.isArray(tools) || tools.length !== 1) problems.push(`expected exactly one tool, got ${JSON.stringify(tools)}`);
  else if (forced?.type !== 'tool' || forced?.name !== tools[0].name) problems.push(`tool not forced: tool_choice ${JSON.stringify(forced)}`);
  if (tools?.[0]?.input_schema?.type !== 'object') problems.push('the tool input_schema is not an object schema');
  if (!body?.model || !body?.max_tokens) problems.push('model or max_tokens missing');
  if (!Array.isArray(body?.messages) || body.messages[0]?.role !== 'user') problems.push('messages must start with a user turn');
}

let counter = 0;

function send(res: http.ServerResponse, body: ReceivedRequest['body'], reply: Reply): void {
  if (reply.kind === 'error') {
    // retry-after-ms keeps the SDK's backoff short in tests; the SDK honours it.
    res.writeHead(reply.status, { 'content-type': 'application/json', 'retry-after-ms': '5', 'request-id': `req_fake_${++counter}` });
    res.end(JSON.stringify({ type: 'error', error: { type: reply.type, message: reply.message } }));
    return;
  }
  if (reply.kind === 'raw') {
    res.writeHead(reply.status, { 'content-type': reply.contentType });
    res.end(reply.body);
    return;
  }
  const content =
    reply.kind === 'tool'
      ? [{ type: 'tool_use', id: `toolu_fake_${++counter}`, name: body?.tool_choice?.name ?? body?.tools?.[0]?.name, input: reply.input }]
      : reply.kind === 'content' ? reply.content
      : [{ type: 'text', text: reply.text }];
  res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${++counter}` });
  res.end(
    JSON.stringify({
      id: `msg_fake_${counter}`,
      type: 'message',
      role: 'assistant',
      model: body?.model,
      content,
      stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: ('usage' in reply ? reply.usage : undefined) ?? { input_tokens: 10, output_tokens: 5 },
    }),
  );
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const sockets = new Set<Socket>();
  const fake: FakeAnthropic = {
    url: '',
    requests: [],
    problems: [],
    queue: [],
    fallback: undefined,
    reset() {
      this.requests.length = 0;
      this.problems.length = 0;
      this.queue.length = 0;
      this.fallback = undefined;
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body: ReceivedRequest['body'];
      try {
        body = JSON.parse(raw);
      } catch {
        fake.problems.push('request body is not JSON');
      }
      const request = { headers: req.headers, body };
      fake.requests.push(request);
      checkShape(body, fake.problems);
      if (!apiKeyOf(request)) fake.problems.push('no API key sent');
      const queued = fake.queue.shift() ?? fake.fallback;
      const reply: Reply = queued === undefined
        ? apiError(500, 'api_error', 'fake Anthropic: no canned reply left')
        : typeof queued === 'function' ? queued(request) : queued;
      if (queued === undefined) res.setHeader('x-should-retry', 'false');
      const delay = reply.kind === 'tool' ? (reply.delayMs ?? 0) : 0;
      setTimeout(() => {
        if (!res.destroyed) send(res, body, reply);
      }, delay);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return fake;
}

/** The API key a request carried: the SDK sends it as x-api-key or as a bearer token. */
export function apiKeyOf(request: ReceivedRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header;
  return request.headers.authorization?.replace(/^Bearer /, '');
}

/** All text the request's messages carry (user text, tool results), for assertions. */
export function messageText(request: ReceivedRequest): string {
  const parts: string[] = [];
  for (const message of request.body?.messages ?? []) {
    if (typeof message.content === 'string') parts.push(message.content);
    else for (const block of message.content ?? []) {
      if (typeof block.text === 'string') parts.push(block.text);
      if (typeof block.content === 'string') parts.push(block.content);
    }
  }
  return parts.join('\n');
}
