/**
 * The language-free signals of issue 58, one pass at a time on linkedom: credits (passes/credits.ts).
 * Milliseconds each.
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { isCreditLine, removeCredits } from '../../src/engine/content/main/passes/credits.js';

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
