/** The page's links (the links format), and absolute addresses in the content. */

/** Every http(s) link of the page once, without its fragment, in the order of the page. */
export function linksOf(doc: Document): string[] {
  const seen = new Set<string>();
  for (const a of Array.from(doc.querySelectorAll('a[href]'))) {
    const href = (a as HTMLAnchorElement).href;
    if (!/^https?:/i.test(href)) continue;
    const clean = href.split('#')[0]!;
    if (!seen.has(clean)) seen.add(clean);
  }
  return [...seen];
}

/** Links (but those to a place in the page) and images in `root` with their absolute address. */
export function absolutise(root: Element): void {
  for (const el of Array.from(root.querySelectorAll('a[href]'))) {
    const a = el as HTMLAnchorElement;
    if (a.getAttribute('href')!.startsWith('#')) continue;
    a.setAttribute('href', a.href);
  }
  for (const el of Array.from(root.querySelectorAll('img[src]'))) {
    el.setAttribute('src', (el as HTMLImageElement).src);
  }
}
