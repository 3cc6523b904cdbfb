/**
 * What a page's own `<style>` elements hide, for the Node DOM (nodeDom.ts), which applies
 * no style sheet: the selectors of rules that say `display: none` outside any @media block
 * and that no rule of those sheets shows again with another `display` (a mobile-first
 * page hides its desktop menu, then shows it in an @media block: that menu is not hidden).
 * Only compound selectors of a tag, an id and classes (`.hero-banner`, `div.slide.is-off`):
 * no pseudo-class (a menu shown on :hover is not hidden for good), and no combinator, which
 * would need a selector engine on every element (measured: +44% of CPU per page). A hero
 * banner a page keeps for later is told this way; the rest of the cascade (specificity,
 * other rules' states) is not modelled.
 */

/** Calls `visit` for each style rule of `css`, saying whether it sits inside an at-rule block (@media, @supports). */
function eachRule(css: string, visit: (selectors: string, declarations: string, nested: boolean) => void): void {
  let open = 0;
  let start = 0;
  for (let i = 0; i < css.length; i++) {
    const char = css[i];
    if (char === '{') {
      const head = css.slice(start, i).trim();
      if (head.startsWith('@')) {
        open++;
        start = i + 1;
        continue;
      }
      const end = css.indexOf('}', i);
      if (end < 0) return;
      visit(head, css.slice(i + 1, end), open > 0);
      i = end;
      start = end + 1;
    } else if (char === '}') {
      open = Math.max(0, open - 1);
      start = i + 1;
    } else if (char === ';' && css.slice(start, i).trim().startsWith('@')) {
      // A statement at-rule (@import, @charset) ends here.
      start = i + 1;
    }
  }
}

const DISPLAY = /(?:^|;)\s*display\s*:\s*([a-z-]+)/i;

/** A compound selector of a tag, an id and classes (`div.banner.is-off`, `#promo`): the only kind read, matched without a selector engine. */
interface Compound {
  tag?: string;
  id?: string;
  classes: string[];
}

const COMPOUND = /^([a-z][a-z0-9-]*)?((?:[.#][_a-zA-Z][\w-]*)+)$/i;

function compound(selector: string): Compound | null {
  const match = COMPOUND.exec(selector);
  if (!match) return null;
  const parts = match[2]!.match(/[.#][\w-]+/g) ?? [];
  const id = parts.find((part) => part.startsWith('#'))?.slice(1);
  return { tag: match[1]?.toUpperCase(), id, classes: parts.filter((part) => part.startsWith('.')).map((part) => part.slice(1)) };
}

/** What the page's `<style>` elements hide: `hides(el)` says whether a rule hides that element. */
export interface SheetHiding {
  hides(el: Element): boolean;
}

/** The compound selectors the page's `<style>` elements hide, indexed by their first class or their id; null when none. */
export function hiddenBySheets(doc: Document): SheetHiding | null {
  const hiding = new Set<string>();
  const showing = new Set<string>();
  for (const style of Array.from(doc.querySelectorAll('style'))) {
    const css = (style.textContent || '').replace(/\/\*[\s\S]*?\*\//g, '');
    eachRule(css, (selectors, declarations, nested) => {
      const display = DISPLAY.exec(declarations)?.[1]?.toLowerCase();
      if (!display) return;
      for (const raw of selectors.split(',')) {
        const selector = raw.trim();
        if (display !== 'none') showing.add(selector);
        else if (!nested) hiding.add(selector);
      }
    });
  }
  const byKey = new Map<string, Compound[]>();
  for (const selector of hiding) {
    const parsed = showing.has(selector) ? null : compound(selector);
    if (!parsed) continue;
    const key = parsed.id !== undefined ? `#${parsed.id}` : `.${parsed.classes[0]}`;
    byKey.set(key, [...(byKey.get(key) ?? []), parsed]);
  }
  if (byKey.size === 0) return null;
  return {
    hides(el) {
      const id = el.getAttribute('id');
      const classes = (el.getAttribute('class') || '').split(/\s+/).filter(Boolean);
      const keys = [...(id ? [`#${id}`] : []), ...classes.map((name) => `.${name}`)];
      return keys.some((key) =>
        byKey.get(key)?.some((rule) => (!rule.tag || rule.tag === el.tagName) && (!rule.id || rule.id === id) && rule.classes.every((name) => classes.includes(name))),
      );
    },
  };
}
