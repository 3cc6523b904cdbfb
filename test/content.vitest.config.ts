import { defineConfig } from 'vitest/config';
import { pageScriptPlugin } from './helpers/pageScriptPlugin.js';

// `npm run test:content`: the fast loop for main-content work. Node only, on linkedom: the passes, the
// rules, pageKind, the headline, languages, nodeDom and the corpus of pages through the Node path (Markdown
// included). No browser and no build; the Chromium side of the corpus is corpusChromium.test.ts, in npm test.
export default defineConfig({
  plugins: [pageScriptPlugin()],
  test: {
    include: ['test/content/*.test.ts'],
    exclude: ['test/content/corpusChromium.test.ts', '**/node_modules/**'],
    testTimeout: 60_000,
    maxWorkers: 2,
    fileParallelism: true,
    reporters: ['default', './test/summaryReporter.ts'],
  },
});
