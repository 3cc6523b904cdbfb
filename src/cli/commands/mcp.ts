/** `webjobs mcp`: an MCP server over stdio for agents and editors, running jobs here or on --remote. */
import { Console } from 'node:console';
import { Command } from 'commander';
import { LIMITS } from '../../api/limits.js';
import { LOCAL_LIMITS, SERVICE_LIMITS } from '../../api/validate.js';
import { RESULT_CHARS } from '../../mcp/results.js';
import { UsageError } from '../../api/errors.js';
import { createBackend, createLocalBackend } from '../backendFactory.js';
import { parseList } from '../options.js';
import { thousands } from '../../api/thousands.js';

interface McpFlags {
  remote?: string;
  apiKey?: string;
  allowPrivate?: boolean;
  allowHost?: string[];
}

// Built when help is shown.
const help = () => `
Speaks the Model Context Protocol on stdin/stdout (nothing else is written to stdout;
errors of the server itself go to stderr). Tools: scrape, batch_scrape, crawl, map, search,
extract, job_status, job_result. Results are Markdown (page content once), the job record without it
as structured content, at most ${thousands(RESULT_CHARS)} characters of page content per call (maxChars,
maxTokens); job_result reads on with a cursor.
Batch and crawl send progress notifications; a cancelled call cancels its job.
When the client closes stdin, jobs still running are cancelled, the browser closes and
the server exits. Crawl maxPages: at most ${LIMITS.maxLocalCrawlPages} here, ${LIMITS.maxCrawlPages} with --remote.

Pages the agent reads can ask it to fetch anything: URLs whose host is or resolves to a
loopback, private, link-local or cloud-metadata address (http://169.254.169.254/, an
intranet service) are refused, as by serve, unless --allow-private or --allow-host
(host or host:port; with --remote the service applies its own).

Client configuration (e.g. Claude Desktop, Cursor, VS Code):
  {"mcpServers": {"webjobs": {"command": "webjobs", "args": ["mcp"]}}}

Examples:
  $ webjobs mcp
  $ webjobs mcp --allow-host wiki.intranet.example,127.0.0.1:8080
  $ webjobs mcp --remote https://jobs.example.com --api-key "$KEY"
  $ npx @modelcontextprotocol/inspector webjobs mcp`;

export function mcpCommand(): Command {
  return new Command('mcp')
    .summary('serve the jobs as MCP tools over stdio, for agents and editors')
    .description('Run an MCP (Model Context Protocol) server on stdin/stdout whose tools scrape, batch scrape, crawl and extract.')
    .option('--remote <url>', 'run jobs on a webjobs service at this URL instead of locally (env: WEBJOBS_REMOTE)')
    .option('--api-key <key>', 'API key for --remote (env: WEBJOBS_API_KEY)')
    .option('--allow-private', 'also fetch loopback, private, link-local and metadata addresses')
    .option('--allow-host <hosts>', 'host or host:port allowed although private (comma-separated, repeatable)', parseList)
    .addHelpText('after', help)
    .action(async (flags: McpFlags, cmd: Command) => {
      // Started by hand: say what this is, once, where the protocol never looks (stderr), and wait as asked.
      if (process.stdin.isTTY) {
        process.stderr.write('webjobs mcp: an MCP server for agents and editors, speaking JSON-RPC on stdin/stdout; add {"command": "webjobs", "args": ["mcp"]} to your MCP client (webjobs mcp --help); Ctrl-D or Ctrl-C quits\n');
      }
      // stdout is the protocol's: a library that logs with console.log (pdf.js warns that way) must not break it.
      globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
      const remote = Boolean(flags.remote ?? process.env.WEBJOBS_REMOTE);
      if (remote && (flags.allowPrivate || flags.allowHost)) {
        throw new UsageError('--allow-private and --allow-host lift the guard of jobs run here; with --remote the service applies its own');
      }
      const { serveMcp } = await import('../../mcp/server.js');
      const version = cmd.parent?.version() ?? '0.0.0';
      if (remote) {
        // An agent's requests never read this machine's files: a page it read could ask for file:///etc/passwd.
        await serveMcp({ backend: await createBackend({ ...flags, savedPages: false }), limits: SERVICE_LIMITS, version, apiKey: flags.apiKey ?? process.env.WEBJOBS_API_KEY });
      } else {
        // As serve: the agent's pages must not turn it against this machine's network.
        const { allowList, createGuards, refusePrivateUrls } = await import('../../engine/net/ssrf.js');
        const allow = allowList(flags.allowHost);
        const guarded = !flags.allowPrivate;
        const backend = await createLocalBackend(process.env, { guards: guarded ? createGuards({ allow }) : undefined, savedPages: false });
        const refuseUrls = guarded ? (urls: readonly string[]) => refusePrivateUrls(urls, allow) : undefined;
        const refusalHint = guarded
          ? 'To let webjobs mcp read it, start it with --allow-host HOST (or HOST:PORT; comma-separated) for that host, or --allow-private for every private address.'
          : undefined;
        await serveMcp({ backend, limits: LOCAL_LIMITS, version, refuseUrls, refusalHint });
      }
      // A job's leftovers (a timer, a socket) must not keep a server whose client is gone alive.
      process.exit(0);
    });
}
