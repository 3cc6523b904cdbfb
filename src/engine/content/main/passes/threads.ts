/**
 * Threads and posts: what a forum shows about each poster, readers' comments under a post, other posts
 * beside the page's own.
 */
import { classesOf, normalText, textLength, words } from '../dom.js';
import { removeNamed } from './furniture.js';
import { COMMENT_SECTIONS, POSTER, POSTER_DETAIL, POSTER_EXTRA, REPLY, VOTES } from '../rules/names.js';
import { VOTE_TEXT } from '../rules/thresholds.js';
import { namedHeading } from '../titles.js';

/**
 * What a forum shows beside each post about its author (join date, post count,
 * rank, location, signature) and its site notices: not what the thread says.
 * The author's name and the post's date stay.
 */
export function removePosterDetails(root: Element): void {
  removeNamed(
    root,
    (names) =>
      (names.some((w) => POSTER.test(w)) && names.some((w) => POSTER_DETAIL.test(w))) ||
      names.some((w) => POSTER_EXTRA.test(w)),
  );
  // Vote buttons and counts beside each post: a number, not what the thread says.
  for (const el of Array.from(root.querySelectorAll('[class], [id]'))) {
    if (root.contains(el) && textLength(el) <= VOTE_TEXT && words(el).some((w) => VOTES.test(w))) el.remove();
  }
  // A bare count beside a post (its likes, replies, number in the thread): a number, not what the thread says.
  for (const el of Array.from(root.querySelectorAll('span, div, a, li, dd, dt, strong, b, p'))) {
    if (root.contains(el) && el.children.length === 0 && /^#?\d[\d,.]*\s*[km]?$/i.test(normalText(el))) el.remove();
  }
  // A Q&A site's comments under a question or an answer (not the answers, which some sites keep in a comment list).
  for (const el of Array.from(root.querySelectorAll('[class*="comment"]'))) {
    if (root.contains(el) && words(el).some((w) => /^comments$/i.test(w)) && el.parentElement?.closest('.question, .answer, #question, [id^="answer-"]')) el.remove();
  }
}

/**
 * When the page's title heading sits in an `<article>`, the page is that article:
 * the other `<article>`s beside it are other posts (the next stories of an endless
 * blog, teasers). Not on a thread, whose posts are each an article.
 */
export function removeOtherArticles(root: Element): void {
  const title = namedHeading(root);
  if (!title) return;
  const home = title.closest('article');
  if (!home || !root.contains(home)) return;
  // A copy of the header (a responsive page has two) is no other post.
  const own = normalText(title);
  const isCopy = (el: Element) => Array.from(el.querySelectorAll('h1, h2, h3')).some((h) => normalText(h) === own);
  // Drupal renders one item in several <article>s (a header, the full text), each "about" the item's path.
  const about = home.getAttribute('about');
  const isSameItem = (el: Element) => about !== null && el.getAttribute('about') === about;
  const others = Array.from(root.querySelectorAll('article')).filter(
    (other) => !other.contains(home) && !home.contains(other) && !isReply(other) && !isCopy(other) && !isSameItem(other),
  );
  // Other posts come as a series, sharing a class; a lone <article> or one unlike the rest is
  // more likely a part of this item (its body, a recipe's steps).
  const teasers = series(others);
  if (teasers.length >= 2) for (const other of teasers) other.remove();
}

/** Those of `elements` that share a class with another of them: a series (posts, teasers, cards). */
export function series(elements: Element[]): Element[] {
  return elements.filter((el) => elements.some((peer) => peer !== el && classesOf(el).some((name) => classesOf(peer).includes(name))));
}

/** A reply to the page's post (a thread's answers, readers' comments), left to the rules for those. */
export const isReply = (el: Element) =>
  el.matches('[itemprop~="comment"], [itemtype*="Comment"], [itemtype*="Answer"]') || words(el).some((word) => REPLY.test(word));

/** A blog's comment section (see COMMENT_SECTIONS), unless it holds the page's title. */
export function removeCommentSections(root: Element): void {
  for (const el of Array.from(root.querySelectorAll(COMMENT_SECTIONS))) if (root.contains(el) && !el.querySelector('h1')) el.remove();
}
