/**
 * A vitest (Vite) plugin: a test that imports the script bundled for the page
 * (src/engine/content/page/script.generated.ts, which `npm run build` writes and git
 * does not hold) fails with what to do when the file is missing, where Vite would
 * say only that it failed to load the url.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vitest/config';

const GENERATED = /(^|\/)page\/script\.generated(\.js|\.ts)?$/;

export function pageScriptPlugin(): Plugin {
  return {
    name: 'webjobs-page-script',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!GENERATED.test(source) || !importer) return null;
      const file = path.resolve(path.dirname(importer), source.replace(/\.js$/, '.ts'));
      const wanted = file.endsWith('.ts') ? file : `${file}.ts`;
      if (!existsSync(wanted)) {
        throw new Error(`the page script ${path.relative(process.cwd(), wanted)} is missing: run npm run build (it bundles the page script) before this test`);
      }
      return null;
    },
  };
}
