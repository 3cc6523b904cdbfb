/** `webjobs worker`: runs the pages of jobs started on any `webjobs serve --database` node. */
import { Command } from 'commander';
import { UsageError } from '../../api/errors.js';
import { parseInteger, parseList } from '../options.js';
import { waitForSignal } from './serve.js';

interface WorkerFlags {
  database?: string;
  concurrency: number;
  allowPrivate?: boolean;
  allowHost?: string[];
  quiet?: boolean;
}

const HELP = `
Takes pages (one queue job per batch or crawl page, one per scrape or extract job)
from the PostgreSQL queue that \`webjobs serve --database\` nodes fill, runs them in
Chromium, and stores what they produced there. Run as many as the work needs, on any
machine that reaches the database; each needs Chromium (about 100-300 MB per tab).

Each page is held on a lease of WEBJOBS_LEASE_SECONDS (default 30) that a live
worker renews every third of that, however long the page takes. A worker that dies
(SIGKILL, power, network) stops renewing: its pages are run again by another worker,
at most 3 attempts in all, then recorded failed saying why. SIGTERM/SIGINT: stop
taking pages, give the ones running 20 s to finish, hand the rest back to the
queue, exit 0.
Extract jobs need the same model keys and settings (ANTHROPIC_API_KEY or OPENAI_API_KEY and OPENAI_BASE_URL,
WEBJOBS_EXTRACT_PROVIDER, WEBJOBS_MODEL) as the API nodes.

URLs whose host is or resolves to a loopback, private, link-local or metadata address are
refused unless --allow-private or --allow-host (as on serve).

Examples:
  $ webjobs worker --database postgres://webjobs@db.internal/webjobs --concurrency 4
  $ WEBJOBS_DATABASE_URL=postgres://webjobs@db.internal/webjobs webjobs worker`;

export function workerCommand(): Command {
  return new Command('worker')
    .summary('run jobs of serve nodes that share a PostgreSQL database')
    .description('Run the pages of jobs queued in PostgreSQL by `webjobs serve --database` nodes.')
    .option('--database <url>', 'PostgreSQL URL (else WEBJOBS_DATABASE_URL)')
    .option('--concurrency <n>', 'pages at once (and as many scrape/extract jobs)', parseInteger('--concurrency', 1, 64), 2)
    .option('--allow-private', 'also fetch loopback, private, link-local and metadata addresses')
    .option('--allow-host <hosts>', 'host or host:port allowed although private (comma-separated, repeatable)', parseList)
    .option('--quiet', 'no log on stderr')
    .addHelpText('after', HELP)
    .action(async (flags: WorkerFlags) => {
      const database = flags.database ?? (process.env.WEBJOBS_DATABASE_URL || undefined);
      if (!database) throw new UsageError('webjobs worker needs --database postgres://… (or WEBJOBS_DATABASE_URL)');
      const log = flags.quiet ? () => undefined : (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      const [{ connect, pgSettings }, { PgWorker }, { createGuards }] = await Promise.all([
        import('../../pg/connect.js'),
        import('../../pg/worker.js'),
        import('../../engine/net/ssrf.js'),
      ]);
      const env = process.env;
      const allow = new Set((flags.allowHost ?? []).map((h) => h.toLowerCase()));
      const guards = flags.allowPrivate ? {} : createGuards({ allow });
      const connection = await connect(pgSettings(database, env), log);
      const worker = new PgWorker({
        connection,
        env,
        concurrency: flags.concurrency,
        log,
        createEngine: async () => {
          const { BrowserEngine } = await import('../../engine/engine.js');
          return new BrowserEngine({ env, ...guards });
        },
      });
      await worker.start();
      process.stderr.write(`webjobs worker ready (${flags.concurrency} at once)\n`);
      await waitForSignal();
      process.stderr.write('webjobs worker: shutting down\n');
      await worker.close();
      await connection.close();
      process.stderr.write('webjobs worker: stopped\n');
      process.exit(0);
    });
}
