/**
 * The language-free signals of issue 58, one pass at a time on linkedom: credits (passes/credits.ts), date lines
 * and bylines (stamps.ts), the author's box (authorBox.ts), a heading over a list of other articles (headedLinks.ts).
 * Milliseconds each.
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { isCreditLine, removeCredits } from '../../src/engine/content/main/passes/credits.js';
import { removeAuthorBox } from '../../src/engine/content/main/passes/authorBox.js';
import { removeHeadedLinks } from '../../src/engine/content/main/passes/headedLinks.js';
import { bylineName, isDateText, nameBeforeDate, removeStamps } from '../../src/engine/content/main/passes/stamps.js';
import { removeFurniture } from '../../src/engine/content/main/passes/furniture.js';
import { removePrompts } from '../../src/engine/content/main/passes/prompts.js';
import { extractInNode } from '../../src/engine/content/inNode.js';

function onPage<T>(body: string, read: (doc: Document) => T, lang = 'de'): T {
  return withNodeDocument(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>T</title></head><body>${body}</body></html>`, 'http://127.0.0.1/page', read);
}

const text = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();

describe('credits', () => {
  it('tells a credit by its shape: ©, slash-joined names or a credit label by a picture', () => {
    expect(isCreditLine('© Action press/Bernd März', false)).toBe(true);
    expect(isCreditLine('REUTERS/Nadja Wohlleben', true)).toBe(true);
    expect(isCreditLine('STR/AFP via Getty Images', true)).toBe(true);
    expect(isCreditLine('Foto: REUTERS/Nadja Wohlleben', true)).toBe(true);
    expect(isCreditLine('Zdjęcie: PAP', true)).toBe(true);
    // Slashes and labels need a picture beside them: in the text they are text.
    expect(isCreditLine('REUTERS/Nadja Wohlleben', false)).toBe(false);
    expect(isCreditLine('Foto: dpa', false)).toBe(false);
    // A caption's sentence is no credit.
    expect(isCreditLine('Überflutete Gebiete nördlich von Ljubljana.', true)).toBe(false);
    expect(isCreditLine('84 reviews / 5 average', true)).toBe(false);
    expect(isCreditLine('HSA / FSA eligible', true)).toBe(false);
    expect(isCreditLine('Blaze (he/him)', true)).toBe(false);
    expect(isCreditLine('Die Kinder spielen im Hof und/oder im Garten, wenn es nicht regnet.', true)).toBe(false);
  });

  it('removes credit lines by pictures and © lines, and keeps the caption and a © inside a sentence', () => {
    onPage(
      `<article>
        <figure><img src="a.jpg" alt=""><figcaption>Überflutete Gebiete nördlich von Ljubljana.</figcaption><p>© Action press/Bernd März</p></figure>
        <div><picture><img src="b.jpg" alt=""></picture><p>Friedrich Merz</p><p>Foto: REUTERS/Nadja Wohlleben</p></div>
        <p>Der Text des Artikels, mit einem Satz über die Rechte: <span>© 2024 Acme</span> gehört dem Verlag.</p>
        <p>© Licencja na publikację © ℗ Wszystkie prawa zastrzeżone Źródło: rp.pl</p>
        <p>Die Stadt Berlin/Brandenburg plant neue Radwege.</p>
      </article>`,
      (doc) => {
        const article = doc.querySelector('article')!;
        removeCredits(article, { article: true });
        const kept = text(article);
        expect(kept).toContain('Überflutete Gebiete nördlich von Ljubljana.');
        expect(kept).toContain('Friedrich Merz');
        expect(kept).toContain('© 2024 Acme gehört dem Verlag');
        expect(kept).toContain('Berlin/Brandenburg plant');
        expect(kept).not.toContain('Bernd März');
        expect(kept).not.toContain('Wohlleben');
        expect(kept).not.toContain('Licencja');
      },
    );
  });
});

describe('credits on a page that is not an article', () => {
  it("keeps a shop card's slashed line by its picture, and still drops a © line", () => {
    onPage('<main><div><img src="c.jpg" alt=""><p>Red/Pink M</p></div><p>© 2026 Shop GmbH</p><p>Text of the page that stays.</p></main>', (doc) => {
      const main = doc.querySelector('main')!;
      removeCredits(main, { article: false });
      expect(text(main)).toContain('Red/Pink M');
      expect(text(main)).toContain('Text of the page that stays.');
      expect(text(main)).not.toContain('Shop GmbH');
    });
  });
});

const paragraph = (n: number) => `<p>Paragraph ${n} of the story, long enough to be a paragraph of the body and not a line of its furniture or a label.</p>`;

describe('date lines and bylines', () => {
  it('tells a date line by its digits, in any language, and not a sentence that names a year', () => {
    for (const line of ['Apr 28, 2024 10:00 AM', '30 August 2023 • 4:45pm', 'Friday, 22 Nov 2024 4:55 PM MYT', 'Publié le 12 mars 2024 à 14h35', 'SRF 4 News, 15.4.2024, 10:05 Uhr', 'TNW中文站2016年10月14日07:17']) {
      expect(isDateText(line), line).toBe(true);
    }
    for (const line of ['Die Wahl von 2024 hat das Land verändert.', '谷歌(微博) 在2014年收购的人工智能公司DeepMind开发出一款能够用自己的记忆学习新知识', 'Champions League', 'Season 2024 in review of the club and its players']) {
      expect(isDateText(line), line).toBe(false);
    }
    expect(bylineName('Von Nicole Opitz', [])).toBe('Nicole Opitz');
    expect(bylineName('By Jane Doe | 12.3.2024', [])).toBe('Jane Doe');
    expect(bylineName('By the river there is a town', [])).toBeNull();
    expect(bylineName('Text: Anna Weber', ['Anna Weber'])).toBe('Anna Weber');
  });

  it("removes the date line and the byline by the headline and the date line after the body, and says what they said", () => {
    onPage(
      `<article><h1>Die Brücke</h1><div><time datetime="2024-04-28T10:00:00-04:00">Apr 28, 2024 10:00 AM</time></div><p>Von Nicole Opitz</p>
        ${paragraph(1)}<p>Posted in 2024 by us: <time datetime="2024-05-01">1 May</time> and more text that is a sentence of the body.</p>${paragraph(2)}
        <p>SRF 4 News, 15.4.2024, 10:05 Uhr</p></article>`,
      (doc) => {
        const article = doc.querySelector('article')!;
        expect(removeStamps(article, [])).toEqual({ publishedTime: '2024-04-28T10:00:00-04:00', author: 'Nicole Opitz' });
        const kept = text(article);
        expect(kept).not.toContain('Apr 28');
        expect(kept).not.toContain('Nicole Opitz');
        expect(kept).not.toContain('SRF 4 News');
        // A date inside a sentence stays, and so do the body's paragraphs.
        expect(kept).toContain('Posted in 2024 by us: 1 May and more text');
        expect(kept).toContain('Paragraph 2');
      },
    );
  });

  it('keeps a date line in a table, a list or a quote (a timetable, a changelog, a quoted post)', () => {
    onPage(`<main>${paragraph(1)}<ul><li>12.03.2024</li></ul><blockquote><p>— Anna (@anna) July 18, 2026</p></blockquote>${paragraph(2)}</main>`, (doc) => {
      const main = doc.querySelector('main')!;
      removeStamps(main, []);
      expect(text(main)).toContain('12.03.2024');
      expect(text(main)).toContain('July 18, 2026');
    });
  });
});

describe('a byline with no opening word, and the date line the furniture takes', () => {
  const nameAndDate = (html: string) => onPage(`<div id="x">${html}</div>`, (doc) => nameBeforeDate(doc.getElementById('x')!));

  it('reads a name before a date in digits, or a name in its own element before a date in words', () => {
    expect(nameAndDate('Max Mustermann, 12.03.2024')).toEqual({ name: 'Max Mustermann', date: '12.03.2024' });
    expect(nameAndDate('<a href="/autor/ana">Ana García</a> | 4 de marzo de 2024')).toEqual({ name: 'Ana García', date: '4 de marzo de 2024' });
    // The same shape in words alone is a date line that opens with a word or two, not a name.
    expect(nameAndDate('Published Tuesday, 12 March 2024')).toBeNull();
    // A place or a weekday is one word; a line with digits before the comma is no name.
    expect(nameAndDate('Berlin, 12.03.2024')).toBeNull();
    expect(nameAndDate('SRF 4 News, 15.4.2024, 10:05 Uhr')).toBeNull();
  });

  it('fills the author and the date alone when the page declares no author, and not when it does', () => {
    const line = `<article><h1>T</h1><p>Max Mustermann, 12.03.2024</p>${paragraph(1)}${paragraph(2)}</article>`;
    onPage(line, (doc) => {
      const article = doc.querySelector('article')!;
      expect(removeStamps(article, [])).toEqual({ publishedTime: '12.03.2024', author: 'Max Mustermann' });
      expect(text(article)).not.toContain('Mustermann');
    });
    onPage(line, (doc) => expect(removeStamps(doc.querySelector('article')!, ['Erika Musterfrau'])).toEqual({ publishedTime: 'Max Mustermann, 12.03.2024' }));
  });

  it("says the date line the furniture removes by the headline, and not one after the body", () => {
    onPage(`<article><h1>T</h1><div>12.11.2026, 14:35 Uhr</div>${paragraph(1)}${paragraph(2)}<p>13.11.2026</p></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      expect(removeFurniture(article, undefined, { dateLines: true })).toEqual({ publishedTime: '12.11.2026, 14:35 Uhr' });
      expect(text(article)).not.toContain('2026');
    });
    onPage(`<article><h1>T</h1>${paragraph(1)}${paragraph(2)}<p>13.11.2026</p></article>`, (doc) => {
      expect(removeFurniture(doc.querySelector('article')!, undefined, { dateLines: true })).toEqual({});
    });
  });

  it("fills the record's metadata from both, where the markup is silent", () => {
    const page = (head: string, line: string) =>
      `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>T</title>${head}</head><body><article><h1>T</h1><div>${line}</div>${paragraph(1)}${paragraph(2)}${paragraph(3)}</article></body></html>`;
    const options = { onlyMainContent: true, includeTags: [], excludeTags: [], wantHtml: false, wantMarkdown: true, wantLinks: false };
    const read = (html: string) => extractInNode(html, 'http://127.0.0.1/a', options).result;
    expect(read(page('', '12.11.2026, 14:35 Uhr')).metadata).toMatchObject({ publishedTime: '12.11.2026, 14:35 Uhr' });
    expect(read(page('', 'Max Mustermann, 12.03.2024')).metadata).toMatchObject({ publishedTime: '12.03.2024', author: 'Max Mustermann' });
    const declared = read(page('<meta property="article:published_time" content="2026-11-12T09:10:00+01:00">', '12.11.2026, 14:35 Uhr'));
    expect(declared.metadata.publishedTime).toBe('2026-11-12T09:10:00+01:00');
    expect(declared.markdown).not.toContain('14:35');
  });
});

describe("the author's box", () => {
  it('removes the box about the declared author after the body, not a line of the body that names them', () => {
    onPage(
      `<article><h1>T</h1>${paragraph(1)}<p>Nicole Opitz said the story would go on, and it did, in more paragraphs than one.</p>${paragraph(2)}${paragraph(3)}
        <div><img src="p.jpg" alt=""><p>Nicole Opitz</p><p>Redakteurin</p><p>Seit 2019 bei der Zeitung. Interessiert sich für Gesundheit.</p></div></article>`,
      (doc) => {
        const article = doc.querySelector('article')!;
        removeAuthorBox(article, ['Nicole Opitz']);
        expect(text(article)).not.toContain('Redakteurin');
        expect(text(article)).toContain('Nicole Opitz said');
        expect(text(article)).toContain('Paragraph 3');
      },
    );
  });

  it('leaves an organisation named as the author, and a box that is not after the body', () => {
    onPage(`<article>${paragraph(1)}${paragraph(2)}<p>Beachbody Performance Recharge, 1 tsp. nut butter</p></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removeAuthorBox(article, ['Beachbody']);
      expect(text(article)).toContain('Beachbody Performance Recharge');
    });
    onPage(`<article><div><p>Nicole Opitz</p><p>Redakteurin seit 2019 bei der Zeitung</p></div>${paragraph(1)}${paragraph(2)}</article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removeAuthorBox(article, ['Nicole Opitz']);
      expect(text(article)).toContain('Redakteurin');
    });
  });
});

describe('a heading over a list of other articles', () => {
  const titles = (n: number) => Array.from({ length: n }, (_, i) => `<li><a href="/story-${i}">The title of another story number ${i}</a></li>`).join('');
  const body = Array.from({ length: 14 }, (_, i) => paragraph(i)).join('');

  it('removes the heading and its list under an article, in any language', () => {
    onPage(`<article><h1>T</h1>${body}<h3>Neueste Artikel</h3><ul>${titles(5)}</ul><div><strong>【関連記事】</strong><ol>${titles(4)}</ol></div></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removeHeadedLinks(article);
      expect(text(article)).not.toContain('Neueste Artikel');
      expect(text(article)).not.toContain('another story');
      expect(text(article)).not.toContain('関連記事');
      expect(text(article)).toContain('Paragraph 13');
    });
  });

  it('keeps a list that is the content, a short list, and a list on a page without an article', () => {
    onPage(`<main><h2>Stories</h2><ul>${titles(12)}</ul></main>`, (doc) => {
      const main = doc.querySelector('main')!;
      removeHeadedLinks(main, [main.querySelector('ul')!]);
      expect(text(main)).toContain('another story number 11');
      removeHeadedLinks(main);
      expect(text(main)).toContain('another story number 11');
    });
    onPage(`<article>${body}<h3>See also</h3><ul>${titles(2)}</ul></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removeHeadedLinks(article);
      expect(text(article)).toContain('another story number 1');
    });
  });
});

describe('a prompt by a form, a button, a rating or share links', () => {
  const body = Array.from({ length: 12 }, (_, i) => paragraph(i)).join('');
  const share = '<a href="https://www.facebook.com/sharer/sharer.php?u=x">Facebook</a> <a href="https://twitter.com/intent/tweet?url=x">X</a> <a href="mailto:?subject=x">E-Mail</a>';

  it('removes each widget with its prompt after the body and before it, in any language', () => {
    onPage(
      `<article><h1>T</h1><div><span>Share this</span> ${share}</div>${body}
        <div><p>War der Artikel nützlich?</p><button>Ja</button><button>Nein</button></div>
        <div><span>Bewerten:</span><label><input type="radio" name="r" value="1">1</label><label><input type="radio" name="r" value="2">2</label><label><input type="radio" name="r" value="3">3</label></div>
        <h3>Kommentar schreiben</h3><form><textarea></textarea><button>Senden</button></form></article>`,
      (doc) => {
        const article = doc.querySelector('article')!;
        removePrompts(article);
        const kept = text(article);
        for (const gone of ['Share this', 'Facebook', 'nützlich', 'Bewerten', 'Kommentar schreiben']) expect(kept).not.toContain(gone);
        expect(kept).toContain('Paragraph 0');
        expect(kept).toContain('Paragraph 11');
      },
    );
  });

  it("keeps a heading a widget's box would climb to or stand in: a product's name over its vote button, an FAQ's question", () => {
    onPage(`<article><h1>T</h1>${body}<div><div><h3>Aurora Teapot Pro</h3></div><span><button aria-label="Vote">26</button></span></div></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removePrompts(article);
      expect(text(article)).toContain('Aurora Teapot Pro');
    });
    onPage(`<article><h1>T</h1>${body}<h3><a href="#" role="button">How long does a teapot keep warm?</a></h3><div><p>About an hour.</p></div></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removePrompts(article);
      expect(text(article)).toContain('How long does a teapot keep warm?');
    });
  });

  it('keeps a widget inside the body, one by a picture, and every widget of a page with no article', () => {
    onPage(`<article><h1>T</h1>${paragraph(0)}<div><p>Wie finden Sie das?</p><button>Gut</button></div>${body}<figure><img src="a.jpg" alt=""><button>Zoom</button></figure></article>`, (doc) => {
      const article = doc.querySelector('article')!;
      removePrompts(article);
      expect(text(article)).toContain('Wie finden Sie das?');
      expect(text(article)).toContain('Zoom');
    });
    onPage(`<main><h1>Kontakt</h1>${paragraph(0)}<form><label>Ihre Frage an uns<input name="q"></label><button>Senden</button></form></main>`, (doc) => {
      const main = doc.querySelector('main')!;
      removePrompts(main);
      expect(text(main)).toContain('Ihre Frage an uns');
    });
  });
});
