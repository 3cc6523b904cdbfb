/**
 * Lists that are the content (src/engine/content/main/passes/lists.ts), on linkedom as the Node path reads a
 * page: what makes a list of titles, and when such lists are the region's content. The whole pipeline on whole
 * pages is the corpus's (index-home-stories*).
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { columns, contentLists, isListOfTitles } from '../../src/engine/content/main/passes/lists.js';

function onPage<T>(body: string, read: (doc: Document) => T): T {
  return withNodeDocument(`<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`, 'http://127.0.0.1/page', read);
}

const titles = ['The winter ferry timetable is out', 'The fish market moves indoors', 'A new lifeboat for the station', 'School roof repaired before term'];
const list = (items: string[], href = (i: number) => `/story/${i}`) => `<ul id="l">${items.map((t, i) => `<li><a href="${href(i)}">${t}</a></li>`).join('')}</ul>`;
const listOfTitles = (body: string) => onPage(body, (doc) => isListOfTitles(doc.getElementById('l')!));

describe('isListOfTitles', () => {
  it('takes a list of links to pages of their own whose text is a title', () => {
    expect(listOfTitles(list(titles))).toBe(true);
  });

  it('takes a run of siblings of one tag and class, each with its title link (a grid of cards)', () => {
    const cards = titles.map((t, i) => `<div class="card"><h3><a href="/story/${i}">${t}</a></h3><p>A teaser.</p></div>`).join('');
    expect(listOfTitles(`<div id="l">${cards}</div>`)).toBe(true);
  });

  it('leaves a menu of labels, a table of contents, links to one page and a short list', () => {
    expect(listOfTitles(list(['Shop', 'Journal', 'Community', 'Help centre', 'My account']))).toBe(false);
    expect(listOfTitles(list(titles, (i) => `#section-${i}`))).toBe(false);
    expect(listOfTitles(list(titles, () => '/story'))).toBe(false);
    expect(listOfTitles(list(titles.slice(0, 3)))).toBe(false);
  });

  it('counts a wide character as two columns, as it is drawn', () => {
    expect(columns('救命艇が新しくなりました')).toBe(24);
    expect(listOfTitles(list(['冬のフェリー時刻表が発表', '魚市場が屋内に移転します', '救命艇が新しくなりました', '新学期前に学校の屋根を修理']))).toBe(true);
  });
});

describe('contentLists', () => {
  const intro = (length: number) => `<p>${'Harbour news from the quay and the town. '.repeat(Math.ceil(length / 41)).slice(0, length)}</p>`;
  const found = (body: string) => onPage(body, (doc) => contentLists(doc.getElementById('root')!).map((el) => el.id));

  it('are lists of titles beside an introduction, when they hold a quarter of the text', () => {
    expect(found(`<div id="root">${intro(300)}${list(titles)}</div>`)).toEqual(['l']);
  });

  it('are none under an article’s worth of prose, nor when the list is a small part of the text', () => {
    expect(found(`<div id="root">${intro(2000)}${list(titles)}</div>`)).toEqual([]);
    expect(found(`<div id="root">${intro(300)}<table><tr><td>${'Timetable '.repeat(60)}</td></tr></table>${list(titles)}</div>`)).toEqual([]);
  });
});
