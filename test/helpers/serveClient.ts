/** A small client of a `webjobs serve` under test: JSON calls with a key, and waits on job states. */
export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface ServeClient {
  call(method: string, path: string, options?: { key?: string; body?: unknown }): Promise<Answer>;
  /** Starts a job of `kind` (scrape, scrape/batch, crawl, extract); returns its path, /api/<kind>/<jobId>. */
  start(kind: string, body: unknown, key?: string): Promise<string>;
  /** Polls the job's status until it is final; returns that status. */
  waitFinal(path: string, key?: string): Promise<string>;
  waitStatus(path: string, wanted: string, key?: string): Promise<void>;
}

const FINAL = ['completed', 'failed', 'stopped'];

export function serveClient(baseUrl: () => string, defaultKey: string): ServeClient {
  const call: ServeClient['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { 'x-api-key': options.key ?? defaultKey };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl()}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const waitStatus = async (path: string, wanted: (status: string) => boolean, key?: string): Promise<string> => {
    for (;;) {
      const { body } = await call('GET', `${path}/status`, { key });
      if (wanted(body.status)) return body.status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    call,
    async start(kind, body, key) {
      const answer = await call('POST', `/api/${kind}`, { key, body });
      if (answer.status !== 200) throw new Error(`start ${kind} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return `/api/${kind}/${answer.body.jobId}`;
    },
    waitFinal: (path, key) => waitStatus(path, (status) => FINAL.includes(status), key),
    waitStatus: async (path, wanted, key) => {
      await waitStatus(path, (status) => status === wanted, key);
    },
  };
}
