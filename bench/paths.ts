/** Where the repository is, from a bench module compiled to .bench-build/bench/ or read as source by vitest. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(from: string): string {
  let dir = from;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'webjobs') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`bench: no webjobs package.json above ${from}`);
    dir = parent;
  }
}

export const REPO_ROOT = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));
/** The CLI as built by `npm run build` (dist/), which the benches run as a child process. */
export const BIN = path.join(REPO_ROOT, 'bin', 'webjobs.js');
