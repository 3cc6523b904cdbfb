import { extractInNode } from './dist/engine/content/inNode.js';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
const dir = process.argv[2] ?? '/work/shared/data/article-extraction-benchmark/html';
for (const id of process.argv.slice(3)) {
  const file = readFileSync(`${dir}/` + (await import('node:fs')).readdirSync(dir).find(f => f.startsWith(id)));
  const html = gunzipSync(file).toString('utf8');
  const t = performance.now();
  const r = extractInNode(html, 'http://127.0.0.1:1/x.html', { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false });
  console.log(id, (performance.now()-t).toFixed(0)+'ms', html.length, 'md', r.result.markdown.length, JSON.stringify(r.signals), r.result.warning ?? '', '\n', r.result.markdown.slice(0, 300));
}
