/** `webjobs serve`: this machine becomes the service, for `--remote` clients and plain HTTP. */
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { UsageError } from '../../api/errors.js';
import { MODEL_PROVIDERS, type ModelProviderName } from '../../api/types.js';
import { DEFAULT_MAX_JOBS, SERVER_DEFAULTS } from '../../server/defaults.js';
import { parseDelayList, parseInteger, parseList } from '../options.js';

interface ServeFlags {
  host: string;
  port: number;
  keys?: string;
  allowPrivate?: boolean;
  allowHost?: string[];
  maxJobs: number;
  maxJobsPerKey: number;
  sharedCache?: boolean;
  browserNice: number;
  database?: string;
  worker: boolean;
  quiet?: boolean;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  headersTimeout: number;
  keepAliveTimeout: number;
  maxResultBytes: number;
  extractProvider?: ModelProviderName;
  extractModel?: string;
  webhookSecretFile?: string;
  webhookRetryDelays?: number[];
}

/** The secret of --webhook-secret-file (its first line), else WEBJOBS_WEBHOOK_SECRET; refused when empty. */
async function webhookSecret(flags: ServeFlags): Promise<string | undefined> {
  if (flags.webhookSecretFile === undefined) return process.env.WEBJOBS_WEBHOOK_SECRET || undefined;
  const text = await readFile(flags.webhookSecretFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`--webhook-secret-file: cannot read ${flags.webhookSecretFile} (${err.code ?? err.message})`);
  });
  const secret = text.split(/\r?\n/)[0]!.trim();
  if (secret === '') throw new UsageError(`--webhook-secret-file: ${flags.webhookSecretFile} is empty`);
  return secret;
}

/** The environment of serve's jobs: --extract-provider and --extract-model become the extract defaults. */
async function jobEnv(flags: ServeFlags): Promise<NodeJS.ProcessEnv> {
  const env = {
    ...process.env,
    ...(flags.extractProvider ? { WEBJOBS_EXTRACT_PROVIDER: flags.extractProvider } : {}),
    ...(flags.extractModel ? { WEBJOBS_MODEL: flags.extractModel } : {}),
  };
  if (flags.extractProvider) {
    // A default provider without its key could run no extract job: refused at start, exit 2.
    const { llmSettings } = await import('../../engine/extract/llm.js');
    llmSettings(env);
  }
  return env;
}

const HELP = `
API (all JSON; header x-api-key on every request):
  POST   /api/scrape | /api/scrape/batch | /api/crawl | /api/extract   start a job: {"jobId"}
  GET    /api/<kind>/{jobId}/status                                      {"status"}
  GET    /api/<kind>/{jobId}[?page=N&batchSize=M]                        the job record (batch/crawl paged)
  DELETE /api/<kind>/{jobId}                                             cancel: {"status": "stopped"}
  GET    /api/jobs                                                       this key's jobs
  POST   /api/map                                                        a site's URLs at once: {"links": [{"url", ...}]}
  GET    /api/files/{jobId}/{name}                                       a job's screenshot (its record holds this URL)
  GET    /healthz                                                        {"status": "ok"}, no key needed
Firecrawl-compatible API (header Authorization: Bearer KEY; same keys, plans and limits):
  POST /v1|v2/scrape (answers when done), /map, /batch/scrape, /crawl, /extract; GET|DELETE .../{id}
  (crawl and batch status paged by ?skip=N&limit=M with "next"); unsupported fields are a 400
  naming them. docs/firecrawl.md has the mapping of every field.
Errors are {"message"} with 400 bad request, 401 no/wrong key, 402 plan too low, 404 unknown job,
413 body over 1 MiB, 429 too many pending/running jobs for the key, 500 a bug of ours.

Keys: --keys FILE with {"keys": [{"key": "s3cret", "plan": "scale", "name": "acme"}]}
  ("sha256": "<hex of the key>" instead of "key" keeps it out of the file),
  or WEBJOBS_API_KEYS="k1:scale,k2:free". Plans: free < paid < scale < enterprise;
  batch scrape needs scale or higher, useProxy and solveCaptchas a paid plan.
Crawl maxPages: at most 100 here (the spec's limit), whatever the local CLI allows.
webjobs extensions: batch "concurrency" (tabs), batch and crawl "delay" (ms between two requests to one host);
extract "provider" ("anthropic" or "openai") and "model" (defaults: --extract-provider, --extract-model);
POST /api/map {"url", "search", "limit", "depth", "ignoreSitemap", "includePatterns", "excludePatterns"}.

URLs whose host is or resolves to a loopback, private, link-local or metadata address are
refused (each request the browser makes, redirects included) unless --allow-private or --allow-host.
Jobs: keys take the --max-jobs slots in turn, and with two keys or more one key never runs on every
slot (at most --max-jobs − 1), so another key's job starts at once. The page cache (maxAge) is each
key's own; --shared-cache shares it (a "hit" then tells one key what another fetched).
--browser-nice 10: Chromium's whole process tree gets about a tenth of serve's CPU weight, so status and
/healthz answer promptly while pages render; on a machine shared with other work it starves the jobs.
SIGTERM/SIGINT: stop accepting, fail running jobs saying why (a request waiting on one gets 503), exit 0;
pending jobs resume on the next start.

Webhooks: crawl, batch scrape and extract take "webhook": URL or {url, headers, metadata, events}; each
event is POSTed in order (Firecrawl's form), signed in X-Firecrawl-Signature with --webhook-secret-file (else
WEBJOBS_WEBHOOK_SECRET), retried after each of --webhook-retry-delays (default 1m,5m,15m), then dropped
(counted in the job's webhookFailures). The receiver passes the same address check as a page.

Several machines (see docs/scaling.md): with --database postgres://…
(or WEBJOBS_DATABASE_URL) jobs, pages, key limits and the work queue live in PostgreSQL; any
number of serve nodes answer the API and any number of \`webjobs worker\` processes run the pages.
This serve also runs a worker (--max-jobs pages at once) unless --no-worker.

Examples:
  $ WEBJOBS_API_KEYS="$(openssl rand -hex 16):scale" webjobs serve
  $ webjobs serve --host 0.0.0.0 --port 8080 --keys /etc/webjobs/keys.json --max-jobs 4 --browser-nice 10
  $ curl -s -H "x-api-key: $KEY" -H 'content-type: application/json' \\
      -d '{"url":"https://example.com"}' http://127.0.0.1:8080/api/scrape
  $ webjobs scrape https://example.com --remote http://127.0.0.1:8080 --api-key "$KEY"
  $ webjobs serve --webhook-secret-file /etc/webjobs/webhook-secret --webhook-retry-delays 30s,5m
  $ webjobs serve --database postgres://webjobs@db.internal/webjobs --no-worker`;

export function serveCommand(): Command {
  return new Command('serve')
    .summary('run webjobs as an HTTP service')
    .description('Serve the job API over HTTP; jobs run on this machine and are stored in WEBJOBS_HOME.')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', parseInteger('--port', 0, 65535), 8080)
    .option('--keys <file>', 'JSON file of API keys and their plans (else WEBJOBS_API_KEYS)')
    .option('--allow-private', 'also fetch loopback, private, link-local and metadata addresses')
    .option('--allow-host <hosts>', 'host or host:port allowed although private (comma-separated, repeatable)', parseList)
    .option('--max-jobs <n>', 'jobs running at once; more wait as pending', parseInteger('--max-jobs', 1), DEFAULT_MAX_JOBS)
    .option('--max-jobs-per-key <n>', 'pending plus running jobs one key may have (429 beyond)', parseInteger('--max-jobs-per-key', 1), SERVER_DEFAULTS.maxActiveJobsPerKey)
    .option('--shared-cache', "share the page cache (maxAge) between keys; by default each key reads only its own entries")
    .option('--browser-nice <n>', 'run Chromium at this nice (0-19) above serve: API answers first, jobs slower when the CPU is busy', parseInteger('--browser-nice', 0, 19), 0)
    .option('--database <url>', 'PostgreSQL URL shared by several serve and worker nodes (else WEBJOBS_DATABASE_URL; else WEBJOBS_HOME files)')
    .option('--max-connections <n>', 'open connections in all; more are closed at once', parseInteger('--max-connections', 1), SERVER_DEFAULTS.maxConnections)
    .option(
      '--max-connections-per-address <n>',
      'open connections from one client address, more get 503 (0: no cap; behind a reverse proxy every client is the proxy)',
      parseInteger('--max-connections-per-address', 0),
      SERVER_DEFAULTS.maxConnectionsPerAddress,
    )
    .option('--headers-timeout <ms>', "a connection that has not sent a request's headers in this long is closed", parseInteger('--headers-timeout', 1), SERVER_DEFAULTS.headersTimeout)
    .option('--keep-alive-timeout <ms>', 'an idle connection between two requests is closed after this long', parseInteger('--keep-alive-timeout', 1), SERVER_DEFAULTS.keepAliveTimeout)
    .option(
      '--max-result-bytes <n>',
      "bytes of page entries in one answer of a batch's or crawl's result (at least one entry); the rest follows by next",
      parseInteger('--max-result-bytes', 1),
      SERVER_DEFAULTS.maxResultBytes,
    )
    .option('--no-worker', 'with --database: answer the API only; `webjobs worker` processes run the jobs')
    .addOption(
      new Option('--extract-provider <name>', "extract jobs' default model server (else WEBJOBS_EXTRACT_PROVIDER; else the one whose key is set, Anthropic first)").choices([
        ...MODEL_PROVIDERS,
      ]),
    )
    .option('--extract-model <name>', "extract jobs' default model (else WEBJOBS_MODEL)")
    .option('--webhook-secret-file <file>', 'sign webhook deliveries (X-Firecrawl-Signature) with the secret in this file (else WEBJOBS_WEBHOOK_SECRET)')
    .option('--webhook-retry-delays <list>', 'delays before the retries of a failed webhook delivery, e.g. 1m,5m,15m (the default)', parseDelayList('--webhook-retry-delays'))
    .option('--quiet', 'no request log on stderr')
    .addHelpText('after', HELP)
    .action(async (flags: ServeFlags) => {
      const log = flags.quiet ? undefined : (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      // Loaded here: the server (Fastify, the job store, the engine) is serve's alone.
      const { startServer } = await import('../../server/server.js');
      const server = await startServer({
        env: await jobEnv(flags),
        host: flags.host,
        port: flags.port,
        keysFile: flags.keys,
        allowPrivate: flags.allowPrivate,
        allowHosts: flags.allowHost,
        maxJobs: flags.maxJobs,
        maxActiveJobsPerKey: flags.maxJobsPerKey,
        sharedCache: flags.sharedCache,
        browserNice: flags.browserNice,
        database: flags.database ?? (process.env.WEBJOBS_DATABASE_URL || undefined),
        worker: flags.worker,
        maxResultBytes: flags.maxResultBytes,
        connections: {
          maxConnections: flags.maxConnections,
          maxConnectionsPerAddress: flags.maxConnectionsPerAddress,
          headersTimeout: flags.headersTimeout,
          keepAliveTimeout: flags.keepAliveTimeout,
        },
        log,
        webhookSecret: await webhookSecret(flags),
        webhookRetryDelaysMs: flags.webhookRetryDelays,
      });
      process.stderr.write(`webjobs serve listening on ${server.url}\n`);
      await waitForSignal();
      process.stderr.write('webjobs serve: shutting down\n');
      await server.close('webjobs serve shut down while this job was running');
      process.stderr.write('webjobs serve: stopped\n');
      // Whatever a job left behind (a timer, a socket) must not keep a stopped server alive.
      process.exit(0);
    });
}

export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
