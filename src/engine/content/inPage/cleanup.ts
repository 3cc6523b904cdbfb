/** What goes from the copy of the page before its content is chosen: what is never content, and the user's selectors. */

/** Never content. `noscript` too, except that main-content selection may read it first. */
export const REMOVE_ALWAYS = 'script, style, template, svg, canvas, iframe, object, embed, link, meta, base';

export function remove(root: ParentNode, selector: string): void {
  for (const el of Array.from(root.querySelectorAll(selector))) el.remove();
}

/**
 * The message selectUser throws for a user's includeTags/excludeTags that the DOM's selector engine rejects; it
 * crosses the page (or worker) boundary as text. The engines import it from here, not from inPage.ts, whose
 * imports (the passes, turndown, Readability) the main thread of the CLI must not load.
 */
export const BAD_USER_SELECTOR = /(?:include|exclude)Tags: .* is not a valid CSS selector/;

/** querySelectorAll for a selector the user gave, failing with a message that names the option. */
export function selectUser(root: ParentNode, selector: string, option: string): Element[] {
  try {
    return Array.from(root.querySelectorAll(selector));
  } catch {
    throw new Error(`${option}: "${selector}" is not a valid CSS selector`);
  }
}

/**
 * What a <video> or <audio> holds besides its sources is for browsers without HTML5
 * media ("Your browser does not support the video tag."): no reader sees it.
 */
export function removeMediaFallbacks(root: ParentNode): void {
  for (const media of Array.from(root.querySelectorAll('video, audio'))) {
    for (const child of Array.from(media.childNodes)) if (!/^(SOURCE|TRACK)$/.test(child.nodeName)) child.parentNode?.removeChild(child);
  }
}
