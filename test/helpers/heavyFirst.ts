/**
 * The order test files start in: the heaviest first, then vitest's own order (the longest last time, or on a
 * clean clone, where vitest knows no durations, the largest file first). On a clean clone the two contract
 * suites, whose files are a few lines long, started last and ran alone at the end: 2 workers, Node 22, the
 * whole suite 1,296 s with remotePostgres (161 s) and remote (153 s) the last two files to end.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that took 80 s or more of a clean-clone run (Node 22, 2026-12-02), heaviest first. */
const HEAVY = [
  'test/remotePostgres.test.ts',
  'test/remote.test.ts',
  'test/readme.test.ts',
  'test/actions.test.ts',
  'test/engines.test.ts',
  'test/postgres.test.ts',
  'test/interrupt.test.ts',
];

export default class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = HEAVY.findIndex((name) => file.moduleId.endsWith(name));
      return at === -1 ? HEAVY.length : at;
    };
    // A stable sort: the files outside HEAVY keep vitest's order.
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}
