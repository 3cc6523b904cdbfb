/** Runs the real CLI (bin/webjobs.js, compiled dist/) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/webjobs.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

/** A fresh, empty WEBJOBS_HOME for a test file. */
export function tempHome(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'webjobs-test-'));
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

export interface RunningCli {
  child: ChildProcess;
  /** What the CLI printed so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves when it has exited; `code` is null when a signal ended it. */
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/**
 * Starts the CLI and hands it back running, to signal it or close its stdout.
 * `command` runs it under another program, e.g. ['timeout', '5'].
 */
export function startCli(args: string[], options: CliOptions & { command?: string[] } = {}): RunningCli {
  const [program, ...before] = [...(options.command ?? []), process.execPath];
  const child = spawn(program!, [...before, BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 50_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  child.stdin!.end(options.input ?? '');
  return { child, output: () => ({ stdout, stderr }), done };
}

let shimDir: string | undefined;
/** A folder holding a `webjobs` command that runs this build, to put on PATH for shell scripts. */
export function webjobsOnPath(): string {
  if (!shimDir) {
    shimDir = mkdtempSync(path.join(os.tmpdir(), 'webjobs-bin-'));
    writeFileSync(path.join(shimDir, 'webjobs'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  }
  return shimDir;
}

/**
 * Runs `script` with bash (errexit off, pipefail off, as a user's shell), with
 * `webjobs` on PATH, in `cwd`. For pipelines as users write them (`| head`, `| jq`).
 */
export function runShell(script: string, options: CliOptions & { cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env, PATH: `${webjobsOnPath()}:${process.env.PATH}` };
    // A variable given as undefined is removed (CI, say, whose mere presence means something to some tools).
    for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
    const child = spawn('bash', ['-c', script], {
      cwd: options.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 50_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
