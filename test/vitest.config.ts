import { defineConfig } from 'vitest/config';
import { pageScriptPlugin } from './helpers/pageScriptPlugin.js';

// Tests drive a real Chromium: give them time, and do not run more files at once
// than a 2-core machine can render.
export default defineConfig({
  plugins: [pageScriptPlugin()],
  test: {
    include: ['test/**/*.test.ts'],
    // The release check packs and installs the package: npm run test:release (test/release/vitest.config.ts).
    exclude: ['test/release/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ['default', './test/summaryReporter.ts'],
  },
});
