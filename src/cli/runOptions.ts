/**
 * What a batch or crawl command was asked to do with its pages, kept beside the
 * job (`<WEBJOBS_HOME>/runs/<jobId>.json`) so that `webjobs resume ID` goes on as
 * the job was started: into the same --output-dir or -o, with the same formats,
 * --exit-code and --fail (issue 56). A flag given to resume again wins. Kept on
 * the machine that ran the command, for a job on a service too.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Format } from '../api/types.js';
import { makeDirs } from './output.js';
import { readJson, writeJsonAtomic } from '../store/atomicFile.js';
import { webjobsHome } from '../store/paths.js';

/** The flags of a run that say where its pages go and how it ends; paths absolute. */
export interface RunOptions {
  outputDir?: string;
  output?: string;
  formats?: Format[];
  frontMatter?: boolean;
  json?: boolean;
  jsonl?: boolean;
  exitCode?: boolean;
  fail?: boolean;
}

const KEYS = ['outputDir', 'output', 'formats', 'frontMatter', 'json', 'jsonl', 'exitCode', 'fail'] as const;

function fileOf(jobId: string): string {
  return path.join(webjobsHome(), 'runs', `${jobId.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
}

/** What `flags` say of the run, its paths made absolute (resume may run from another folder). */
export function runOptionsOf(flags: RunOptions): RunOptions {
  const kept: RunOptions = {};
  for (const key of KEYS) if (flags[key] !== undefined && flags[key] !== false) (kept as Record<string, unknown>)[key] = flags[key];
  if (kept.outputDir) kept.outputDir = path.resolve(kept.outputDir);
  if (kept.output && kept.output !== '-') kept.output = path.resolve(kept.output);
  return kept;
}

/** Keeps the run's options for a later resume; a failure to write them costs only that (the job runs). */
export async function keepRunOptions(jobId: string, flags: RunOptions): Promise<void> {
  const file = fileOf(jobId);
  await makeDirs(path.dirname(file))
    .then(() => writeJsonAtomic(file, runOptionsOf(flags)))
    .catch(() => undefined);
}

/**
 * `flags` with the options the job was started with where resume was not given
 * them again. A mode of output given again (--json, --jsonl, -o, --output-dir)
 * replaces the kept one whole.
 */
export async function withKeptOptions<F extends RunOptions>(jobId: string, flags: F): Promise<F> {
  const kept = await readJson<RunOptions>(fileOf(jobId)).catch(() => undefined);
  if (!kept) return flags;
  const modeGiven = Boolean(flags.outputDir || flags.output || flags.json || flags.jsonl);
  const merged: F = { ...flags };
  for (const key of KEYS) {
    const isMode = key === 'outputDir' || key === 'output' || key === 'json' || key === 'jsonl' || key === 'frontMatter';
    if (isMode && modeGiven) continue;
    if (merged[key] === undefined && kept[key] !== undefined) (merged as Record<string, unknown>)[key] = kept[key];
  }
  return merged;
}

/** Deletes what keepRunOptions kept of a job (prune deletes the job): none kept is fine. */
export async function forgetRunOptions(jobId: string): Promise<void> {
  await fs.rm(fileOf(jobId), { force: true });
}
