/** Runs `webjobs serve` (the real CLI) as a child process on 127.0.0.1 for tests. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli.js';

export interface ServeProcess {
  /** http://127.0.0.1:PORT, as the server printed it. */
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash would: the server and the browser it started die at once. */
  crash(): Promise<void>;
}

export interface ServeOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** SIGKILL to `child`, then to what it left running below it (its Chromium), as a crash would leave them. */
export async function killTree(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  const below = descendants(child.pid!);
  child.kill('SIGKILL');
  await exited;
  for (const pid of below) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Every process below `pid`, so a crash test can also end the Chromium its server left behind. */
export function descendants(pid: number): number[] {
  let table: string;
  try {
    table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of table.trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number) as [number, number];
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

export function startServe(options: ServeOptions = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...(options.args ?? [])], {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: a serve that never said it listens is stopped with the start that gave up on it.
      child.kill('SIGKILL');
      reject(new Error(`webjobs serve did not start:\n${stderr}`));
    }, 20_000);
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          stderr: () => stderr,
          exited,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
          crash: () => killTree(child, exited),
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`webjobs serve exited with ${code} before listening:\n${stderr}`));
    });
  });
}
