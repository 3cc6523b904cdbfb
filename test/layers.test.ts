/**
 * The layers of src/ (docs/development.md, "The layers"): imports point down
 * only, never in a circle. A folder may import itself and the folders it lists
 * below; anything else fails here, with the file and the import that broke it.
 * A new folder must be given its place in LAYERS before any file in it passes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** What each top folder of src/ may import, besides itself. */
const LAYERS: Record<string, readonly string[]> = {
  api: [],
  // Output sized for agents and retrieval: chunks, token budgets, llms.txt; pure functions of a page's Markdown.
  agents: ['api'],
  engine: ['api'],
  // The job layer: the runners, written once, and the contracts they run on (JobStore, leases, the page cache, job files).
  jobs: ['api', 'engine', 'agents'],
  // The back ends: each implements the contracts of jobs/, and none imports another.
  store: ['api', 'jobs'],
  local: ['api', 'engine', 'jobs'],
  pg: ['api', 'engine', 'jobs'],
  remote: ['api'],
  server: ['api', 'agents', 'engine', 'jobs', 'store', 'local', 'pg'],
  // A front end never imports another one.
  mcp: ['api', 'agents'],
  cli: ['api', 'agents', 'engine', 'jobs', 'store', 'local', 'pg', 'remote', 'server', 'mcp'],
};

/**
 * Rooms of the engine that another room may not enter: the HTTP engine and the page's content code never reach
 * into the browser's room, and the network guard (engine/net/) sits below both engines.
 */
const REFUSED: { from: string; to: string; why: string }[] = [
  { from: 'engine/http/', to: 'engine/browser/', why: "the HTTP engine runs without the browser's modules" },
  { from: 'engine/content/', to: 'engine/browser/', why: 'content code runs in the page and in Node, never with the browser' },
  { from: 'engine/net/', to: 'engine/browser/', why: 'the address guard is below the engines: both call it, it calls neither' },
  { from: 'engine/net/', to: 'engine/http/', why: 'the address guard is below the engines: both call it, it calls neither' },
  // Webhooks (jobs/webhooks/) send plain HTTP through the address guard: never through an engine.
  { from: 'jobs/webhooks/', to: 'engine/browser/', why: 'webhook deliveries are plain HTTP, never the browser' },
  { from: 'jobs/webhooks/', to: 'engine/http/', why: "webhook deliveries are plain HTTP, never the HTTP engine's page fetch" },
];

/** The engine's loose files: the choice of engine and what both engines share; the rest lives in rooms. */
const MAX_LOOSE_ENGINE_FILES = 8;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

/** Every relative import of a file (static, type-only, re-exports and import()), as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => path.posix.normalize(path.posix.join(path.posix.dirname(file), name)).replace(/\.js$/, '.ts'));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const folderOf = (file: string) => file.split('/')[0]!;

/** The import circles of the graph: one path per strongly connected group of files (Tarjan). */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      group.push(member);
      if (member === file) break;
    }
    if (group.length > 1 || graph.get(file)!.includes(file)) found.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe('the layers of src/', () => {
  it('reads the imports it judges (the graph is not empty, and import() counts)', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(graph.get('cli/commands/worker.ts')).toContain('pg/worker.ts');
  });

  it('gives every folder of src/ its place', () => {
    expect([...new Set(files.map(folderOf))].filter((folder) => !(folder in LAYERS))).toEqual([]);
  });

  it('imports only files that exist', () => {
    const missing = [...graph].flatMap(([file, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${file} -> ${t}`));
    expect(missing).toEqual([]);
  });

  it('has no import that runs upward or sideways between folders', () => {
    const wrong = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => folderOf(target) !== folderOf(file) && !(LAYERS[folderOf(file)] ?? []).includes(folderOf(target)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps the HTTP engine and the content code out of the browser', () => {
    const wrong = REFUSED.flatMap((rule) =>
      [...graph]
        .filter(([file]) => file.startsWith(rule.from))
        .flatMap(([file, targets]) => targets.filter((target) => target.startsWith(rule.to)).map((target) => `${file} -> ${target}: ${rule.why}`)),
    );
    expect(wrong).toEqual([]);
  });

  it(`keeps at most ${MAX_LOOSE_ENGINE_FILES} loose files in engine/, the rest in rooms`, () => {
    const loose = [...graph.keys()].filter((file) => /^engine\/[^/]+\.ts$/.test(file));
    expect(loose.length, loose.join(', ')).toBeLessThanOrEqual(MAX_LOOSE_ENGINE_FILES);
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });
});
