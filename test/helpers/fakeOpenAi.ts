/**
 * A small OpenAI Chat Completions API on 127.0.0.1 for tests: POST
 * /v1/chat/completions answers from a queue of canned model answers, the way
 * OpenAI-compatible servers do. By default it is a model that calls the function
 * it is offered and honours `response_format`; `tools` and `responseFormat` make
 * it one that ignores them (and writes its answer in the text, in a ```json
 * block), or a server that refuses them with a 400, as Ollama does for a model
 * without tool support. It records every request and checks the shape webjobs
 * must send; tests read `requests`.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type Reply =
  /** The model's answer as data: a tool call, JSON content or a ```json block, as the request and the server's behaviour make it. */
  | { kind: 'json'; value: unknown; usage?: Usage; delayMs?: number }
  /** Text as it is, whatever was asked. */
  | { kind: 'text'; text: string; usage?: Usage }
  /** A tool call whose arguments are this string as it is (not JSON, say). */
  | { kind: 'arguments'; arguments: string }
  | { kind: 'error'; status: number; message: string };

export type QueuedReply = Reply | ((request: ReceivedRequest) => Reply);

export const answer = (value: unknown, usage?: Usage, delayMs?: number): Reply => ({
  kind: 'json',
  value,
  ...(usage ? { usage } : {}),
  ...(delayMs !== undefined ? { delayMs } : {}),
});
export const text = (content: string): Reply => ({ kind: 'text', text: content });
export const toolArguments = (args: string): Reply => ({ kind: 'arguments', arguments: args });
export const apiError = (status: number, message: string): Reply => ({ kind: 'error', status, message });

/** What the server does with `tools` and `response_format`: a model that uses them, one that ignores them, or a 400. */
export type Support = 'use' | 'ignore' | 'reject';

export interface FakeOpenAi {
  /** The base URL to give as OPENAI_BASE_URL (ends in /v1). */
  url: string;
  requests: ReceivedRequest[];
  /** Shape problems in what webjobs sent: tests expect none. */
  problems: string[];
  queue: QueuedReply[];
  fallback: QueuedReply | undefined;
  tools: Support;
  responseFormat: Support;
  /** Called when a request arrives, before it is answered. */
  onRequest?: (request: ReceivedRequest, res: http.ServerResponse) => void;
  reset(): void;
  close(): Promise<void>;
}

function checkShape(body: ReceivedRequest['body'], problems: string[]): void {
  if (!body?.model) problems.push('model missing');
  const messages = body?.messages;
  if (!Array.isArray(messages) || messages[0]?.role !== 'system' || messages[1]?.role !== 'user') problems.push('messages must start with a system and a user turn');
  if (body?.tools !== undefined) {
    const tools = body.tools;
    if (!Array.isArray(tools) || tools.length !== 1 || tools[0]?.type !== 'function') problems.push(`expected exactly one function tool, got ${JSON.stringify(tools)}`);
    else if (body.tool_choice?.function?.name !== tools[0].function?.name) problems.push(`tool not forced: tool_choice ${JSON.stringify(body.tool_choice)}`);
    else if (tools[0].function.parameters?.type !== 'object') problems.push('the function parameters are not an object schema');
  }
  if (body?.response_format !== undefined) {
    const format = body.response_format;
    if (format.type !== 'json_schema' || typeof format.json_schema?.name !== 'string' || typeof format.json_schema?.schema !== 'object') {
      problems.push(`response_format is not a json_schema: ${JSON.stringify(format)}`);
    }
    if (body.tools !== undefined) problems.push('tools and response_format in one request');
  }
  // Every tool call of an assistant turn must be answered by a tool message, or the API refuses the conversation.
  for (const [i, message] of (Array.isArray(messages) ? messages : []).entries()) {
    for (const call of message.tool_calls ?? []) {
      if (!messages.slice(i + 1).some((m: { role: string; tool_call_id?: string }) => m.role === 'tool' && m.tool_call_id === call.id)) {
        problems.push(`tool call ${call.id} has no tool message answering it`);
      }
    }
  }
}

let counter = 0;

/** How a model that writes its answer in the text writes JSON. */
const fenced = (value: unknown) => `Here is the data from the page:\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;

function message(body: ReceivedRequest['body'], reply: Reply, fake: FakeOpenAi): Record<string, unknown> {
  if (reply.kind === 'text') return { role: 'assistant', content: reply.text };
  const name = body?.tools?.[0]?.function?.name;
  const called = (args: string) => ({ role: 'assistant', content: null, tool_calls: [{ id: `call_fake_${++counter}`, type: 'function', function: { name, arguments: args } }] });
  if (reply.kind === 'arguments') return called(reply.arguments);
  if (reply.kind !== 'json') throw new Error('unreachable');
  if (body?.tools && fake.tools === 'use') return called(JSON.stringify(reply.value));
  if (body?.response_format && fake.responseFormat === 'use') return { role: 'assistant', content: JSON.stringify(reply.value) };
  return { role: 'assistant', content: fenced(reply.value) };
}

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const sockets = new Set<Socket>();
  const fake: FakeOpenAi = {
    url: '',
    requests: [],
    problems: [],
    queue: [],
    fallback: undefined,
    tools: 'use',
    responseFormat: 'use',
    reset() {
      this.requests.length = 0;
      this.problems.length = 0;
      this.queue.length = 0;
      this.fallback = undefined;
      this.tools = 'use';
      this.responseFormat = 'use';
      this.onRequest = undefined;
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/chat/completions') {
        sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error', code: null, param: null } });
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
      if (!req.headers.authorization?.startsWith('Bearer ')) fake.problems.push('no API key sent');
      fake.onRequest?.(request, res);
      // A server that does not support tools or response_format refuses the request before any model runs (Ollama, older vLLM).
      if (body?.tools && fake.tools === 'reject') {
        sendJson(res, 400, { error: { message: `registry.ollama.ai/library/${body.model}:latest does not support tools`, type: 'api_error', param: null, code: null } });
        return;
      }
      if (body?.response_format && fake.responseFormat === 'reject') {
        sendJson(res, 400, { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", type: 'invalid_request_error', param: 'response_format', code: null } });
        return;
      }
      const queued = fake.queue.shift() ?? fake.fallback;
      if (queued === undefined) {
        sendJson(res, 500, { error: { message: 'fake OpenAI: no canned reply left', type: 'server_error', param: null, code: null } }, { 'x-should-retry': 'false' });
        return;
      }
      const reply = typeof queued === 'function' ? queued(request) : queued;
      if (reply.kind === 'error') {
        // retry-after-ms keeps the SDK's backoff short in tests; the SDK honours it.
        sendJson(res, reply.status, { error: { message: reply.message, type: 'server_error', param: null, code: null } }, { 'retry-after-ms': '5' });
        return;
      }
      const msg = message(body, reply, fake);
      const usage = ('usage' in reply ? reply.usage : undefined) ?? { prompt_tokens: 10, completion_tokens: 5 };
      const completion = {
        id: `chatcmpl-fake-${++counter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model,
        choices: [{ index: 0, message: msg, finish_reason: msg.tool_calls ? 'tool_calls' : 'stop', logprobs: null }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      };
      const timer = setTimeout(() => {
        if (!res.destroyed) sendJson(res, 200, completion);
      }, reply.kind === 'json' ? (reply.delayMs ?? 0) : 0);
      // A client that gave up (timeout, abort) ends the wait: nothing is left pending.
      res.on('close', () => clearTimeout(timer));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return fake;
}

/** The last user or tool message of a request: what webjobs said after the model's previous answer. */
export function lastTurn(request: ReceivedRequest): string {
  const messages = request.body?.messages ?? [];
  return String(messages[messages.length - 1]?.content ?? '');
}
