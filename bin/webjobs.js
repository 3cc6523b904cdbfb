#!/usr/bin/env node
// Loads the compiled CLI; run `npm run build` after changing src/.
import('../dist/cli/main.js').then(
  ({ main }) => main(process.argv),
  (err) => {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/cli/main.js')) {
      process.stderr.write('webjobs: not built yet; run `npm run build` in the webjobs folder first\n');
    } else {
      process.stderr.write(`webjobs: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exitCode = 1;
  },
);
