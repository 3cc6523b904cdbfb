/** Runs `webjobs worker` (the real CLI) as a child process for tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { BIN } from './cli.js';
import { descendants, killTree } from './serve.js';

export interface WorkerProcess {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | null>;
  /** SIGKILL of the worker and of the Chromium it started, as a machine dying would. */
  kill(): Promise<void>;
  /**
   * SIGSTOP of the worker alone (its Chromium runs on), resolved once it is stopped: it can begin no page until
   * resume(), while what its browser was already asked to load still arrives.
   */
  pause(): Promise<void>;
  resume(): void;
}

export function startWorker(database: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', '--database', database, '--allow-private', ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('webjobs worker ready')) {
        resolve({
          child,
          stderr: () => stderr,
          exited,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
          kill: () => killTree(child, exited),
          pause: () => pause(child),
          resume: () => signal(child, 'SIGCONT'),
        });
      }
    });
    void exited.then((code) => reject(new Error(`webjobs worker exited with ${code} before it was ready:\n${stderr}`)));
  });
}

async function pause(child: ChildProcess): Promise<void> {
  signal(child, 'SIGSTOP');
  // The signal is delivered when the kernel next schedules the process; until then it may still run.
  while (child.exitCode === null && child.signalCode === null && processState(child.pid!) !== 'T') await new Promise((r) => setTimeout(r, 5));
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    process.kill(child.pid!, name);
  } catch {
    // already gone
  }
}

/** The state letter of /proc/PID/stat ('T': stopped); undefined once the process is gone. */
function processState(pid: number): string | undefined {
  try {
    return /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** The pid of the process (of those given) that owns, or whose descendant owns, the local TCP port. */
export function ownerOfPort(port: number, candidates: readonly number[]): number | undefined {
  for (const pid of candidates) {
    const family = [pid, ...descendants(pid)];
    if (family.some((p) => socketPorts(p).includes(port))) return pid;
  }
  return undefined;
}

/**
 * What a file descriptor points at; '' for one closed since the directory was read. A busy process (Chromium's
 * network service) closes descriptors all the time: one gone must not hide the process's other sockets.
 */
function fdTarget(pid: number, fd: string): string {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`, 'utf8');
  } catch {
    return '';
  }
}

function socketPorts(pid: number): number[] {
  // /proc/PID/net/tcp lists the namespace's sockets; the process's own are its fds' inodes.
  try {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(fdTarget(pid, fd));
      if (m) inodes.add(m[1]!);
    }
    const ports: number[] = [];
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(':')[1]!, 16));
    }
    return ports;
  } catch {
    return [];
  }
}
