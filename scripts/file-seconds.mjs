// Prints test/fileSeconds.ts's table from vitest's results cache after a whole run
// (npm test writes node_modules/.vite/vitest/<hash>/results.json): node scripts/file-seconds.mjs > /tmp/t
// then paste the lines into test/fileSeconds.ts. Only a whole run on the CI machine gives figures worth keeping.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = 'node_modules/.vite/vitest';
const rows = [];
for (const hash of readdirSync(dir)) {
  const { results } = JSON.parse(readFileSync(join(dir, hash, 'results.json'), 'utf8'));
  for (const [key, { duration }] of results) {
    const file = key.slice(key.indexOf(':') + 1);
    if (file.startsWith('test/release/')) continue;
    rows.push([file, Math.round(duration / 1000)]);
  }
}
rows.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
for (const [file, seconds] of rows) process.stdout.write(`  '${file}': ${seconds},\n`);
