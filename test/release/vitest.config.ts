import { defineConfig } from 'vitest/config';

// The release check (`npm run test:release`): packs the package, installs the tarball as
// users get it and runs the installed binary. One file, its steps in order; the install
// from the npm registry and Chromium's start-ups take their time.
export default defineConfig({
  test: {
    include: ['test/release/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
