/**
 * An article's facts kept apart from its body: when it was published and last modified, who wrote it,
 * its language and the site's name. Read from the page's own markup, first what it declares for
 * machines (meta tags, JSON-LD, microdata), then what it shows (a <time> in the article, a link
 * marked rel="author"). Each field is the page's own string, trimmed (a date as the page wrote it,
 * ISO 8601 on nearly every page that declares one); a field the page does not give is absent.
 */

export interface ArticleFacts {
  publishedTime?: string;
  modifiedTime?: string;
  author?: string;
  language?: string;
  siteName?: string;
}

/** Meta tags (name, property or itemprop) for each field, the most trusted first. */
const META: Record<keyof ArticleFacts, string[]> = {
  publishedTime: [
    'article:published_time', 'og:article:published_time', 'datePublished', 'date', 'pubdate', 'publishdate', 'publish-date',
    'dc.date.issued', 'dcterms.issued', 'dc.date', 'dcterms.created', 'parsely-pub-date', 'sailthru.date',
  ],
  modifiedTime: ['article:modified_time', 'og:article:modified_time', 'og:updated_time', 'dateModified', 'last-modified', 'dcterms.modified', 'dc.date.modified'],
  author: ['author', 'article:author', 'og:article:author', 'parsely-author', 'sailthru.author', 'dc.creator', 'dcterms.creator', 'byl'],
  language: ['content-language', 'dc.language', 'og:locale'],
  siteName: ['og:site_name', 'application-name', 'apple-mobile-web-app-title'],
};

/** JSON-LD's property for each field. */
const JSON_LD: Record<keyof ArticleFacts, string> = {
  publishedTime: 'datePublished',
  modifiedTime: 'dateModified',
  author: 'author',
  language: 'inLanguage',
  siteName: 'publisher',
};

const FIELDS = Object.keys(META) as (keyof ArticleFacts)[];

export function articleFacts(doc: Document): ArticleFacts {
  const metas = metaValues(doc);
  const items = jsonLdItems(doc);
  const facts: ArticleFacts = {};
  for (const field of FIELDS) {
    const value = fromMeta(metas, field) ?? fromJsonLd(items, field) ?? fromPage(doc, field);
    if (value) facts[field] = value;
  }
  return facts;
}

/** Every meta tag's content by its name, property, itemprop or http-equiv (lower case), first one kept. */
function metaValues(doc: Document): Map<string, string> {
  const values = new Map<string, string>();
  for (const el of Array.from(doc.querySelectorAll('meta'))) {
    const content = (el.getAttribute('content') || '').trim();
    if (!content) continue;
    for (const attribute of ['property', 'name', 'itemprop', 'http-equiv']) {
      const key = (el.getAttribute(attribute) || '').trim().toLowerCase();
      if (key && !values.has(key)) values.set(key, content);
    }
  }
  return values;
}

function fromMeta(metas: Map<string, string>, field: keyof ArticleFacts): string | undefined {
  for (const name of META[field]) {
    let value = metas.get(name.toLowerCase());
    if (!value) continue;
    // An author given as the address of a profile page names nobody.
    if (field === 'author' && /^https?:\/\//i.test(value)) continue;
    if (field === 'language') value = value.replace('_', '-');
    return value;
  }
  return undefined;
}

type JsonObject = { [key: string]: unknown };

/** Every object of the page's JSON-LD blocks, @graph and nested items included, articles first. */
function jsonLdItems(doc: Document): JsonObject[] {
  const items: JsonObject[] = [];
  const visit = (value: unknown, depth: number) => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const object = value as JsonObject;
    items.push(object);
    if (object['@graph']) visit(object['@graph'], depth + 1);
    if (object.mainEntity) visit(object.mainEntity, depth + 1);
  };
  for (const script of Array.from(doc.querySelectorAll('script[type="application/ld+json"]'))) {
    try {
      visit(JSON.parse(script.textContent || ''), 0);
    } catch {
      // A block that is not JSON says nothing.
    }
  }
  const isArticle = (item: JsonObject) => /Article|Posting|Report/.test(String(item['@type'] ?? ''));
  return [...items.filter(isArticle), ...items.filter((item) => !isArticle(item))];
}

function fromJsonLd(items: JsonObject[], field: keyof ArticleFacts): string | undefined {
  for (const item of items) {
    const value = item[JSON_LD[field]];
    const text = field === 'author' || field === 'siteName' ? names(value) : typeof value === 'string' ? value.trim() : '';
    if (text) return text;
  }
  if (field === 'siteName') {
    const site = items.find((item) => item['@type'] === 'WebSite' && typeof item.name === 'string');
    if (site) return String(site.name).trim() || undefined;
  }
  return undefined;
}

/** The names a JSON-LD person or organisation (or a list of them) gives, joined by ", ". */
function names(value: unknown): string {
  const list = Array.isArray(value) ? value : [value];
  const found = list
    .map((entry) => (typeof entry === 'string' ? entry : entry && typeof entry === 'object' ? (entry as JsonObject).name : undefined))
    .filter((name): name is string => typeof name === 'string' && name.trim() !== '' && !/^https?:\/\//i.test(name.trim()))
    .map((name) => name.trim());
  return [...new Set(found)].join(', ');
}

/** What the page shows: microdata, a <time> in the article, an author link, the lang attribute. */
function fromPage(doc: Document, field: keyof ArticleFacts): string | undefined {
  switch (field) {
    case 'publishedTime':
      return attributeOf(doc.querySelector('[itemprop="datePublished"]')) ?? articleTime(doc);
    case 'modifiedTime':
      return attributeOf(doc.querySelector('[itemprop="dateModified"]'));
    case 'author': {
      const el = doc.querySelector('[itemprop="author"] [itemprop="name"], [itemprop="author"], a[rel~="author"]');
      const text = (el?.getAttribute('content') || el?.textContent || '').replace(/\s+/g, ' ').trim();
      return text && text.length <= 100 ? text : undefined;
    }
    case 'language':
      return doc.documentElement?.getAttribute('lang')?.trim() || doc.documentElement?.getAttribute('xml:lang')?.trim() || undefined;
    default:
      return undefined;
  }
}

function attributeOf(el: Element | null): string | undefined {
  return (el?.getAttribute('datetime') || el?.getAttribute('content') || '').trim() || undefined;
}

/**
 * The article's <time datetime>: the first one inside the <article> (or <main>) that holds the page's
 * headline (h1), else the page's only one. A list of teasers' times elsewhere on the page is not the
 * article's date.
 */
function articleTime(doc: Document): string | undefined {
  const times = Array.from(doc.querySelectorAll('time[datetime]'));
  const headline = doc.querySelector('h1');
  const home = headline?.closest('article') ?? headline?.closest('main');
  const inHome = home ? times.find((time) => home.contains(time)) : undefined;
  const time = inHome ?? (times.length === 1 ? times[0] : undefined);
  return time?.getAttribute('datetime')?.trim() || undefined;
}
