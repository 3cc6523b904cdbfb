import type { ArticleFacts } from './articleMeta.js';

/**
 * The page's metadata as the records give it: title, description, the meta tags kept, language, icon,
 * canonical, and an article's facts (`facts`: publishedTime, modifiedTime, author, siteName, read by articleMeta.ts).
 */
export function metadataOf(doc: Document, facts: ArticleFacts): Record<string, string> {
  const meta: Record<string, string> = {};
  const title = doc.title.trim();
  if (title) meta.title = title;
  for (const el of Array.from(doc.querySelectorAll('meta[name], meta[property]'))) {
    const key = (el.getAttribute('property') || el.getAttribute('name') || '').trim();
    const content = (el.getAttribute('content') || '').trim();
    if (!key || !content) continue;
    const lower = key.toLowerCase();
    if (lower === 'description' || lower === 'viewport' || lower === 'author' || lower === 'keywords' || lower === 'robots') {
      meta[lower] ??= content;
    } else if (lower.startsWith('og:') || lower.startsWith('article:') || lower.startsWith('twitter:')) {
      meta[key] ??= content;
    }
  }
  if (!meta.title && meta['og:title']) meta.title = meta['og:title'];
  if (!meta.description && meta['og:description']) meta.description = meta['og:description'];
  meta.title ??= '';
  meta.description ??= '';
  // A document stopped before its first element has none.
  const lang = doc.documentElement?.getAttribute('lang');
  if (lang) meta.language = lang;
  const icon = doc.querySelector('link[rel~="icon"]') as HTMLLinkElement | null;
  if (icon?.href) meta['link:icon'] = icon.href;
  const canonical = doc.querySelector('link[rel="canonical"]') as HTMLLinkElement | null;
  if (canonical?.href) meta.canonical = canonical.href;
  for (const [field, value] of Object.entries(facts)) meta[field] ??= value;
  return meta;
}
