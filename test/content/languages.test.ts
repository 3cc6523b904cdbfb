/**
 * Pages in other languages (rules/languages.ts, rules/phrases/<lang>.ts): how a page's language is told,
 * once, from what it declares and from its text, and the phrase rules each language brings to the
 * furniture pass. On linkedom, milliseconds each; whole pages in each language are corpus cases (lang-*).
 */
import { describe, expect, it } from 'vitest';
import { withNodeDocument } from '../../src/engine/content/nodeDom.js';
import { pageLanguage, readPage } from '../../src/engine/content/main/pageKind.js';
import { isBoilerplate, isDateLine, removeFurniture } from '../../src/engine/content/main/passes/furniture.js';
import { chooseLanguage, ENGLISH_PHRASES, guessLanguage, languageOfTag, LANGUAGES, phrasesFor } from '../../src/engine/content/main/rules/languages.js';

const GERMAN = 'Die Stadtwerke senken den Preis für die Fernwärme, und der Mieterverein ist nicht überzeugt. Es wird sich zeigen, ob die Vermieter die Senkung auch weitergeben, denn die Abrechnung kommt erst im Herbst. Der Stadtrat hat die Pläne für eine Wärmepumpe mit den Stimmen der Mehrheit beschlossen, und auch die Opposition ist dafür. Eine Entscheidung über den Bau wird für das Frühjahr erwartet, sagte die Geschäftsführerin mit Blick auf die Kosten, die sich auf mehr als vierzig Millionen belaufen.';
const ENGLISH = 'The council said that the new heating prices are to be lower from January, and that this was good news for the tenants of the city. It is not yet clear whether landlords will pass on the savings, as the bills for this year have not been sent. The plan for a heat pump was approved by the council with the votes of the majority, and the opposition is for it as well. A decision on the works is expected in the spring, the director said on Wednesday, with the costs at more than forty million.';
const POLISH = 'Miasto ogłosiło przetarg na budowę nowej linii tramwajowej, która połączy dworzec z osiedlem. Trasa będzie miała prawie sześć kilometrów, a jej budowa ma kosztować około trzystu milionów złotych. Według urzędników tramwaje będą jeździć co siedem minut, a podróż do centrum skróci się o połowę. Prace mają się rozpocząć wiosną i potrwać dwa lata, ale mieszkańcy nie są przekonani, czy to się uda, bo już raz przetarg się nie udał. Jak mówią, jest to dla nich ważne, ale czy się uda, tego nie wie nikt, bo już od lat się o tym mówi i nie ma efektów.';

const page = (html: string) => `<!doctype html><html${html}</html>`;

describe('the language of a tag (languageOfTag)', () => {
  it('reads the language of html lang, og:locale and Content-Language values', () => {
    expect(languageOfTag('de-DE')).toBe('de');
    expect(languageOfTag('pt_BR')).toBe('pt');
    expect(languageOfTag(' FR ')).toBe('fr');
    expect(languageOfTag('nl, en')).toBe('nl');
    expect(languageOfTag('German')).toBe('');
    expect(languageOfTag('')).toBe('');
    expect(languageOfTag(null)).toBe('');
  });
});

describe('the language of a text (guessLanguage)', () => {
  it('tells German, English and Polish prose apart by their stop words', () => {
    expect(guessLanguage(GERMAN)).toBe('de');
    expect(guessLanguage(ENGLISH)).toBe('en');
    expect(guessLanguage(POLISH)).toBe('pl');
  });

  it('guesses nothing from a few words, or from two languages mixed half and half', () => {
    expect(guessLanguage('Die Stadtwerke senken den Preis.')).toBe('');
    expect(guessLanguage(`${GERMAN} ${ENGLISH}`)).toBe('');
  });

  it('has no stop word in two languages', () => {
    const all = Object.values(LANGUAGES).flatMap((table) => table.stopWords);
    expect(all.filter((word, i) => all.indexOf(word) !== i)).toEqual([]);
  });
});

describe("a page's language (chooseLanguage, pageLanguage)", () => {
  it('takes what the page declares, html lang first', () => {
    expect(chooseLanguage(['fr-FR', 'de_DE'], '')).toBe('fr');
    expect(chooseLanguage([null, 'de_DE'], '')).toBe('de');
    expect(chooseLanguage(['de'], ENGLISH)).toBe('de');
  });

  it("takes the text's language when the page declares none, or English over a text that is clearly another", () => {
    expect(chooseLanguage([], POLISH)).toBe('pl');
    expect(chooseLanguage(['en-US'], GERMAN)).toBe('de');
    expect(chooseLanguage(['en'], ENGLISH)).toBe('en');
    expect(chooseLanguage([], 'Kurz.')).toBe('');
  });

  it('reads html lang, og:locale, the Content-Language meta and the paragraphs of the live page', () => {
    const url = 'http://127.0.0.1/a';
    expect(withNodeDocument(page(' lang="it-IT"><head></head><body><p>Ciao.</p></body>'), url, pageLanguage)).toBe('it');
    expect(withNodeDocument(page('><head><meta property="og:locale" content="es_ES"></head><body><p>Hola.</p></body>'), url, pageLanguage)).toBe('es');
    expect(withNodeDocument(page('><head><meta http-equiv="Content-Language" content="nl"></head><body><p>Hallo.</p></body>'), url, pageLanguage)).toBe('nl');
    expect(withNodeDocument(page(`><head></head><body><p>${POLISH}</p></body>`), url, pageLanguage)).toBe('pl');
    expect(withNodeDocument(page(` lang="en-US"><head></head><body><p>${GERMAN}</p></body>`), url, pageLanguage)).toBe('de');
    expect(withNodeDocument(page(` lang="en"><head></head><body><p>${ENGLISH}</p></body>`), url, pageLanguage)).toBe('en');
  });

  it("is one of the page's facts, read once, with its phrase rules; a thread gets no comment headings", () => {
    const url = 'http://127.0.0.1/a';
    const facts = withNodeDocument(page(' lang="de"><head></head><body><main><h1>Titel</h1><p>Text.</p></main></body>'), url, readPage);
    expect(facts.language).toBe('de');
    expect(facts.phrases).toBe(phrasesFor('de'));
    const thread = withNodeDocument(page(' lang="de"><head><meta name="generator" content="Discourse 3.1"></head><body><main><h1>Titel</h1><p>Text.</p></main></body>'), url, readPage);
    expect(thread.isThread).toBe(true);
    expect(thread.phrases.comments).toBeNull();
    expect(thread.phrases.boilerplate).toBe(phrasesFor('de').boilerplate);
  });
});

describe('the phrase rules of a language (phrasesFor)', () => {
  it("gives English's own rules, the same objects, to English and to a language without tables", () => {
    expect(phrasesFor('en')).toBe(ENGLISH_PHRASES);
    expect(phrasesFor('')).toBe(ENGLISH_PHRASES);
    expect(phrasesFor('ja')).toBe(ENGLISH_PHRASES);
    expect(ENGLISH_PHRASES.comments).toBeNull();
  });

  it("adds a language's lines to English's, and English's alone know none of them", () => {
    const de = phrasesFor('de');
    for (const line of ['Anzeige', 'Aktualisiert am 12.11.2026, 14:35 Uhr', 'Jetzt einen Kommentar schreiben', 'Schreiben Sie einen Kommentar', 'War dieser Artikel hilfreich?', 'Impressum · Datenschutz · Kontakt', 'Back to top']) {
      expect(de.boilerplate.test(line), line).toBe(true);
    }
    for (const line of ['Anzeige', 'Aktualisiert am 12.11.2026', 'Impressum']) expect(ENGLISH_PHRASES.boilerplate.test(line), line).toBe(false);
    expect(de.boilerplate.test('Die Anzeige wurde am Montag bei der Polizei erstattet.')).toBe(false);
    expect(phrasesFor('fr').boilerplate.test('Publicité')).toBe(true);
    expect(phrasesFor('es').boilerplate.test('Publicidad')).toBe(true);
    expect(phrasesFor('it').boilerplate.test('Pubblicità')).toBe(true);
    expect(phrasesFor('pt').boilerplate.test('Publicidade')).toBe(true);
    expect(phrasesFor('nl').boilerplate.test('Advertentie')).toBe(true);
    expect(phrasesFor('pl').boilerplate.test('Reklama')).toBe(true);
  });

  it('knows the headings that open other stories in each language, and still English ones', () => {
    const headings: Record<string, string> = {
      de: 'Das könnte Sie auch interessieren',
      fr: 'Lire aussi',
      es: 'Artículos relacionados',
      it: 'Leggi anche',
      pt: 'Veja também',
      nl: 'Lees ook',
      pl: 'Czytaj także',
    };
    for (const [language, heading] of Object.entries(headings)) {
      expect(phrasesFor(language).elsewhere.test(heading), heading).toBe(true);
      expect(phrasesFor(language).elsewhere.test('You may also like'), language).toBe(true);
      expect(ENGLISH_PHRASES.elsewhere.test(heading), heading).toBe(false);
    }
    // The end of a word, in letters beyond ASCII: "Czytaj także" is not "Czytaj takżeś".
    expect(phrasesFor('pl').elsewhere.test('Może cię zainteresować')).toBe(true);
    expect(phrasesFor('pl').elsewhere.test('Może cię zainteresowaćś')).toBe(false);
  });

  it('knows comment headings whole, never a heading that only starts so', () => {
    const de = phrasesFor('de').comments!;
    expect(de.test('Kommentare (12)')).toBe(true);
    expect(de.test('3 Leserkommentare')).toBe(true);
    expect(de.test('Kommentar')).toBe(false);
    expect(de.test('Kommentare zur Lage der Nation: ein Überblick')).toBe(false);
    expect(phrasesFor('fr').comments!.test('3 commentaires')).toBe(true);
    expect(phrasesFor('pl').comments!.test('Komentarz')).toBe(false);
    // WordPress's "3 thoughts on …", counted; a heading that only starts so is a section of the page ("Antworten zu häufigen Fragen").
    expect(de.test('3 Gedanken zu „Fernwärme wird billiger“')).toBe(true);
    expect(de.test('Antworten zu häufigen Fragen')).toBe(false);
    expect(phrasesFor('es').comments!.test('Respuestas a las preguntas frecuentes')).toBe(false);
    expect(phrasesFor('es').comments!.test('2 respuestas a «La biblioteca abre de noche»')).toBe(true);
  });
});

describe('furniture in the page\'s language (removeFurniture with its phrases)', () => {
  const html = page(`><body><div id="root"><article><h1>Stadtwerke senken die Preise</h1>
    <p>Rund 38.000 Haushalte zahlen vom 1. Januar an weniger für ihre Fernwärme, wie die Stadtwerke am Mittwoch ankündigten. Der Arbeitspreis sinkt um knapp elf Prozent.</p>
    <div class="box"><span>Anzeige</span></div>
    <p>Der Mieterverein begrüßte die Ankündigung, mahnte aber zur Vorsicht: Viele Vermieter gäben gesunkene Preise erst mit der nächsten Abrechnung weiter.</p>
    <div class="modul"><h2>Ähnliche Artikel</h2><p><a href="/bus">Buslinie 12 fährt im Zehn-Minuten-Takt</a> Die Verkehrsbetriebe setzen neue Busse ein.</p></div>
    <div class="modul"><h2>Kommentare (2)</h2><p>Elf Prozent klingt gut, aber im letzten Jahr wurde um fast vierzig Prozent erhöht.</p></div>
  </article></div></body>`);
  const kept = (language: string) =>
    withNodeDocument(html, 'http://127.0.0.1/a', (doc) => {
      const root = doc.getElementById('root')!;
      removeFurniture(root, phrasesFor(language));
      return (root.textContent || '').replace(/\s+/g, ' ');
    });

  it('drops the German label, the related stories and the comments, and keeps the article', () => {
    const text = kept('de');
    expect(text).toContain('Rund 38.000 Haushalte');
    expect(text).toContain('Der Mieterverein begrüßte');
    for (const gone of ['Anzeige', 'Ähnliche Artikel', 'Buslinie 12', 'Kommentare (2)', 'Elf Prozent']) expect(text).not.toContain(gone);
  });

  it("leaves them to the other passes on a page read as English (English's rules as they were)", () => {
    const text = kept('en');
    for (const still of ['Anzeige', 'Ähnliche Artikel', 'Kommentare (2)']) expect(text).toContain(still);
    withNodeDocument(page('><body><p id="p">Anzeige</p></body>'), 'http://127.0.0.1/a', (doc) => {
      expect(isBoilerplate(doc.getElementById('p')!)).toBe(false);
      expect(isBoilerplate(doc.getElementById('p')!, phrasesFor('de'))).toBe(true);
    });
  });
});

describe('a line that is only a date in digits (isDateLine), in any language', () => {
  const isDate = (html: string) => withNodeDocument(page(`><body>${html}</body>`), 'http://127.0.0.1/a', (doc) => isDateLine(doc.getElementById('x')!));

  it("is a story's date stamp, with its time or not", () => {
    for (const line of ['12.11.2026, 09:10 Uhr', '2026-11-12 09:10', '13/11/2026', '12.11.2026 | 14h35']) {
      expect(isDate(`<p id="x">${line}</p>`), line).toBe(true);
    }
    expect(isDate('<div id="x"><time datetime="2026-11-12">12.11.2026</time></div>')).toBe(true);
  });

  it('is not a price, a sentence, a date in a table, list or heading (a changelog, a timetable), nor a time alone', () => {
    for (const line of ['14.35', '12.50 EUR', 'Am 12.11.2026 beschloss der Rat den Plan.', '1.2.3', '1.2.10']) expect(isDate(`<p id="x">${line}</p>`), line).toBe(false);
    expect(isDate('<table><tr><td><span id="x">12.11.2026</span></td></tr></table>')).toBe(false);
    expect(isDate('<ul><li><span id="x">12.11.2026</span></li></ul>')).toBe(false);
    expect(isDate('<div id="x"><ul><li>12.11.2026</li></ul></div>')).toBe(false);
    expect(isDate('<h3><span id="x">2026-11-12</span></h3>')).toBe(false);
    expect(isDate('<div id="x"><img src="/logo.png" alt=""><span>19.11.2019, 08:57</span></div>')).toBe(false);
  });

  it('goes with the furniture when asked, as the pipeline asks on every page but a thread (a post keeps its date)', () => {
    const html = page('><body><div id="root"><h1>Titel</h1><p>12.11.2026, 09:10 Uhr</p><p>Der Stadtrat hat den Plan am Mittwoch beschlossen.</p></div></body>');
    const kept = (dateLines: boolean) =>
      withNodeDocument(html, 'http://127.0.0.1/a', (doc) => {
        const root = doc.getElementById('root')!;
        removeFurniture(root, phrasesFor('de'), { dateLines });
        return root.textContent || '';
      });
    expect(kept(true)).not.toContain('12.11.2026');
    expect(kept(false)).toContain('12.11.2026');
    expect(kept(true)).toContain('Der Stadtrat');
  });
});
