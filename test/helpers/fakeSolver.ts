/** A 2Captcha-compatible solving service on 127.0.0.1 (in.php / res.php, json=1) for tests. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSolver {
  url: string;
  /** The tasks submitted to in.php, as their form fields. */
  tasks: Record<string, string>[];
  close(): Promise<void>;
}

/** Answers every task with `token` after one "not ready" poll; refuses a wrong key. */
export async function startFakeSolver(key: string, token: string): Promise<FakeSolver> {
  const tasks: Record<string, string>[] = [];
  const polls = new Map<string, number>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let body = '';
    for await (const chunk of req) body += chunk;
    const fields = Object.fromEntries(new URLSearchParams(body || url.search));
    const reply = (status: number, request: string) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status, request }));
    };
    if (fields.key !== key) return reply(0, 'ERROR_WRONG_USER_KEY');
    if (url.pathname === '/in.php') {
      tasks.push(fields);
      const id = String(tasks.length);
      polls.set(id, 0);
      return reply(1, id);
    }
    if (url.pathname === '/res.php' && fields.action === 'get') {
      const seen = polls.get(fields.id ?? '');
      if (seen === undefined) return reply(0, 'ERROR_WRONG_CAPTCHA_ID');
      polls.set(fields.id!, seen + 1);
      return seen === 0 ? reply(0, 'CAPCHA_NOT_READY') : reply(1, token);
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tasks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
