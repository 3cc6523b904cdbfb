// Pairs fundus' test pages with their truths (see fetch-fundus.sh): node fundus-pairs.mjs DATA_DIR DEST.
// In a country folder, <Publisher>.json holds one entry per page in the pages' date order (V1, V1_1, V1_2...),
// the pages are <Publisher>_<YYYY_MM_DD>.html.gz and meta.info gives each page's address.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [dataDir, dest] = process.argv.slice(2);
const truths = {};
let skipped = 0;
for (const country of readdirSync(dataDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
  const dir = path.join(dataDir, country);
  const files = readdirSync(dir);
  const meta = files.includes('meta.info') ? JSON.parse(readFileSync(path.join(dir, 'meta.info'), 'utf8')) : {};
  for (const file of files.filter((f) => f.endsWith('.json')).sort()) {
    const publisher = file.slice(0, -'.json'.length);
    const entries = Object.values(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    const pattern = new RegExp(`^${publisher.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_(\\d{4}_\\d{2}_\\d{2})\\.html\\.gz$`);
    const pages = files.filter((f) => pattern.test(f)).sort();
    if (pages.length !== entries.length) {
      console.log(`fetch-fundus: ${country}/${publisher} left out: ${pages.length} pages, ${entries.length} truths`);
      skipped++;
      continue;
    }
    pages.forEach((page, i) => {
      const entry = entries[i];
      const id = `${country}_${page.slice(0, -'.html.gz'.length)}`;
      copyFileSync(path.join(dir, page), path.join(dest, 'html', `${id}.html.gz`));
      truths[id] = {
        country,
        publisher,
        url: meta[page]?.url ?? 'http://localhost/',
        title: entry.title ?? '',
        authors: entry.authors ?? [],
        publishedTime: entry.publishing_date ?? null,
        body: bodyText(entry.body),
      };
    });
  }
}
writeFileSync(path.join(dest, 'truths.json'), JSON.stringify(truths, null, 1) + '\n');
console.log(`fetch-fundus: ${Object.keys(truths).length} pages paired; ${skipped} publishers left out`);

/** The article's text: the summary, then each section's headline and paragraphs. */
function bodyText(body) {
  if (!body) return '';
  const blocks = [...(body.summary ?? [])];
  for (const section of body.sections ?? []) blocks.push(...(section.headline ?? []), ...(section.paragraphs ?? []));
  return blocks.join('\n\n');
}
