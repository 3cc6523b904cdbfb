/**
 * React's streaming server rendering sends a page's slow parts after the shell, each in
 * a hidden `<div id="S:n">`, and its runtime's inline scripts (`$RC("B:m","S:n")`) move
 * each over its `<template id="B:m">` and the fallback after it ("Loading
 * paragraph..."). Where those scripts have not run (over HTTP, or scripts off), the
 * same is done here from the calls the page carries; without them (a saved page),
 * the parts go to the placeholders in the order both came, rather than the article lost.
 * The fallback goes only when the boundary's closing comment (`<!--/$-->`) says where it ends.
 */
export const STREAMED_SEGMENT = 'div[hidden][id^="S:"]';

export function completeStreamedSegments(doc: Document): void {
  const segments = Array.from(doc.querySelectorAll(STREAMED_SEGMENT));
  if (segments.length === 0) return;
  const places = new Map<string, Element>();
  for (const script of Array.from(doc.querySelectorAll('script'))) {
    for (const call of (script.textContent || '').matchAll(/\$RC\("(B:[0-9a-f]+)","(S:[0-9a-f]+)"\)/g)) {
      const placeholder = doc.getElementById(call[1]!);
      if (placeholder?.tagName === 'TEMPLATE') places.set(call[2]!, placeholder);
    }
  }
  // Without the calls, the parts go to the placeholders left, in the order both came.
  const placed = new Set(places.values());
  const free = Array.from(doc.querySelectorAll('template[id^="B:"]')).filter((placeholder) => !placed.has(placeholder));
  for (const segment of segments) {
    segment.removeAttribute('hidden');
    const placeholder = places.get(segment.id) ?? free.shift();
    if (placeholder) fillPlaceholder(placeholder, segment);
  }
}

/** Puts `segment`'s content over `placeholder`, and over the fallback after it when its end is marked. */
function fillPlaceholder(placeholder: Element, segment: Element): void {
  const fallback: Node[] = [];
  let node = placeholder.nextSibling;
  while (node && !(node.nodeType === 8 && (node as Comment).data === '/$')) {
    fallback.push(node);
    node = node.nextSibling;
  }
  if (node) for (const part of fallback) part.parentNode?.removeChild(part);
  placeholder.replaceWith(...Array.from(segment.childNodes));
  segment.remove();
}
