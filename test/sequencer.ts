/**
 * Starts the longest test files first (longest processing time first), so that the two workers end
 * together instead of one long file running alone at the end. Vitest's own order needs its timings
 * cache, which a clean clone (CI) lacks: it then starts files by size, and the contract suites
 * (test/remote.test.ts, test/remotePostgres.test.ts: small files, the longest runs) started last.
 * The seconds come from test/fileSeconds.ts, not from vitest's cache, so the order is the same on
 * every machine; a file not listed there counts as DEFAULT_SECONDS, ties go by path.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { fileSeconds } from './fileSeconds.js';

/** A new file, until it is listed: among the longer ones, so that it cannot end up alone at the end. */
export const DEFAULT_SECONDS = 30;

export function secondsOf(file: string): number {
  return fileSeconds[file] ?? DEFAULT_SECONDS;
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const keyed = files.map((spec) => ({ spec, file: relative(root, spec.moduleId).split('\\').join('/') }));
    keyed.sort((a, b) => secondsOf(b.file) - secondsOf(a.file) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    return keyed.map(({ spec }) => spec);
  }
}
