/** One schema.org item as JSON-LD: `@context` (top level), `@type`, `@id`, and its properties. */
export type StructuredItem = Record<string, unknown>;

export const SCHEMA_ORG_CONTEXT = 'https://schema.org';

/** A schema.org vocabulary URL, either scheme, with or without its trailing slash. */
const SCHEMA_ORG = /^https?:\/\/schema\.org\/?/i;

/** `http://schema.org/Product` → `Product`; any other vocabulary's term stays a full URL. */
export function schemaOrgTerm(iri: string): string {
  return SCHEMA_ORG.test(iri) ? iri.replace(SCHEMA_ORG, '') : iri;
}

export const isSchemaOrg = (iri: string): boolean => SCHEMA_ORG.test(iri);

/** Adds `value` under `name`: a second value makes an array, as JSON-LD writes several values. */
export function addValue(item: StructuredItem, name: string, value: unknown): void {
  const current = item[name];
  if (current === undefined) item[name] = value;
  else if (Array.isArray(current)) current.push(value);
  else item[name] = [current, value];
}

/** Text as a reader sees it: whitespace runs as one space, trimmed. */
export const plainText = (text: string | null | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();

/** `value` resolved against `base`, or as written when it is not a URL. */
export function absoluteUrl(value: string, base: string): string {
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return value.trim();
  }
}

/** The address relative URLs of `doc` resolve against: its `<base href>` over the page's own URL. */
export function baseOf(doc: Document, pageUrl: string): string {
  const href = doc.querySelector('base[href]')?.getAttribute('href');
  return href ? absoluteUrl(href, pageUrl) : pageUrl;
}
