/**
 * The webjobs command line. Errors cross into the CLI here, once: a WebjobsError
 * becomes one line on stderr and its exit code.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ExitCode, OutputClosedError, WebjobsError } from '../api/errors.js';
import { extractCommand } from './commands/extract.js';
import { batchCommand } from './commands/batch.js';
import { crawlCommand } from './commands/crawl.js';
import { completionCommand } from './commands/completion.js';
import { cancelCommand, listCommand, pruneCommand, resultCommand, statusCommand } from './commands/jobs.js';
import { mcpCommand } from './commands/mcp.js';
import { llmsTxtCommand } from './commands/llmstxt.js';
import { mapCommand } from './commands/map.js';
import { profilesCommand } from './commands/profiles.js';
import { resumeCommand } from './commands/resume.js';
import { retryCommand } from './commands/retry.js';
import { scrapeCommand } from './commands/scrape.js';
import { searchCommand } from './commands/search.js';
import { serveCommand } from './commands/serve.js';
import { waitCommand } from './commands/wait.js';
import { workerCommand } from './commands/worker.js';
import { printable } from './printable.js';
import { colors } from './terminal.js';
import { escapeInput } from '../api/quote.js';

const EXIT_CODES_HELP = `
Exit codes:
  0    the job completed (every page, for batch and crawl)
  1    the job failed; with --fail, the server answered 4xx/5xx; or the output could not be written
  2    bad usage or bad input (invalid URL, unknown format, bad number, invalid schema, missing API key)
  3    batch or crawl completed, but some pages failed (with --fail, 4xx/5xx pages count)
  4    no job with that id
  5    --wait-timeout ran out; the job goes on (its id is printed on stderr)
  6    this machine lacks something (no browser found)
  7    the remote service failed or could not be reached
  8    the job's stored record is damaged (cut short by a crash or a full disk); its state is unknown
  9    the back end (a service, with --remote) lacks the feature asked for, named
  10   --exit-code: done, and a page is new, changed or removed since the last run (changeTracking);
       it wins over failed pages, which stderr names
  11   resume: the job cannot go on (it completed, failed on its own, still runs, or is no batch or crawl)
  12   cancel: the job had already ended; nothing changed
  130  Ctrl-C (SIGINT); 143 SIGTERM (e.g. timeout); 129 SIGHUP: the job was stopped
       (state "stopped", pages done kept, on the service too with --remote) and one
       line on stderr says how to read it and go on with it (webjobs resume); a second
       Ctrl-C quits at once
  141  stdout was closed by its reader (| head): a quiet stop, as cat's; the job is stopped

Nothing outlives webjobs: Chromium is driven over a pipe and exits with it, even
after kill -9; its profile ($TMPDIR/webjobs-chromium-PID-*) is removed on exit, or
by the next webjobs that starts a browser.

Environment:
  WEBJOBS_HOME      where jobs are stored (default: ~/.local/state/webjobs)
  WEBJOBS_CHROME    the Chrome/Chromium to use (else Puppeteer's, else the system's)
  WEBJOBS_REMOTE    run jobs on this webjobs service; WEBJOBS_API_KEY is its key
  WEBJOBS_DATABASE_URL  serve and worker: share jobs and work through this PostgreSQL
  NO_COLOR          no colours on stderr`;

/** The version of record, package.json's (dist/cli/main.js sits two folders below it). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('webjobs')
    .description('Turn web pages into clean data: scrape, batch, crawl and extract jobs.')
    .version(packageVersion(), '-V, --version', 'print the version of webjobs')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\nExamples:\n  $ webjobs scrape https://example.com\n  $ webjobs scrape https://example.com --json | jq .data.metadata\n${EXIT_CODES_HELP}`);
  const commands = [scrapeCommand(), batchCommand(), crawlCommand(), mapCommand(), llmsTxtCommand(), searchCommand(), extractCommand(), statusCommand(), waitCommand(), resultCommand(), listCommand(), cancelCommand(), pruneCommand(), profilesCommand(), retryCommand(), resumeCommand(), serveCommand(), workerCommand(), mcpCommand(), completionCommand()];
  for (const cmd of commands) program.addCommand(cmd);
  return program;
}

function report(message: string): void {
  process.stderr.write(`${colors.red('webjobs:')} ${printable(message)}\n`);
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv[2] === '__run-job') {
    const { detachedJobCommand } = await import('./commands/detachedJob.js');
    program.addCommand(detachedJobCommand(), { hidden: true });
  }
  // Usage errors look like every other error: one line starting with "webjobs:".
  // Commander's messages are one line that may quote the argument as given: its line feeds are input, escaped.
  const output = { outputError: (text: string, write: (text: string) => void) => write(`${colors.red('webjobs:')} ${escapeInput(text.replace(/^error: /, '').replace(/\n$/, ''))}\n`) };
  for (const cmd of [program, ...program.commands]) cmd.exitOverride().configureOutput(output);
  // A closed stdout or stderr (`| head`) fails the write that met it, where it is handled; never an unhandled 'error' event.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    process.exitCode = exitCodeFor(err);
  }
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // Commander already printed its message (or the help).
    return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
  }
  if (err instanceof OutputClosedError) return err.exitCode;
  if (err instanceof WebjobsError) {
    report(err.message);
    return err.exitCode;
  }
  report(`internal error: ${(err as Error)?.stack ?? String(err)}`);
  return ExitCode.jobFailed;
}
