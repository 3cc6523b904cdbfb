import { describe, expect, it } from 'vitest';
import { detectLanguage } from '../bench/language.js';
import { languageRows, spacedIdeographs } from '../bench/languageReport.js';
import { expectedText, fnv1a, fundusHalf } from '../bench/langSets.js';

describe("bench:quality's language of a text", () => {
  it('tells languages by script, then by their commonest words', () => {
    expect(detectLanguage('Die Landessynode tagt zweimal im Jahr, und die Studie ist nicht das Ende, sagte er mit dem Bischof.')).toBe('de');
    expect(detectLanguage("Les députés ont adopté le projet de loi sur le renseignement, qui sera examiné par le Sénat dans une semaine et pour la suite.")).toBe('fr');
    expect(detectLanguage('Los pueblos indígenas reclaman por derechos que permanecen incumplidos, por eso es más eficiente la protesta.')).toBe('es');
    expect(detectLanguage('The report was published by the ministry and it has been read by those who were there.')).toBe('en');
    expect(detectLanguage('気象庁は13日、日向灘で震度5弱の地震があったと発表した。')).toBe('ja');
    expect(detectLanguage('新华社北京4月24日电 题：促进航天技术更好惠及人民')).toBe('zh');
    expect(detectLanguage('서울 시민들은 오늘 아침 새로운 정책에 대해 이야기했다')).toBe('ko');
    expect(detectLanguage('Как развеселили себя президент России и премьер Малайзии')).toBe('ru');
    expect(detectLanguage('Lorem ipsum dolor sit amet, consectetur adipisicing elit, sed do eiusmod tempor incididunt ut labore.')).toBe('la');
    expect(detectLanguage('12.11.2026 14:35')).toBe('und');
  });

  it('does not read a lang attribute or any markup: text only', () => {
    expect(detectLanguage('<html lang="en">Der Artikel ist nicht für die Leser, sagte er mit dem Bischof und den anderen.</html>')).toBe('de');
  });
});

describe("bench:quality's per-language scoring", () => {
  it('counts each Han or kana character as a word, leaving spaced scripts alone', () => {
    expect(spacedIdeographs('震度5弱').split(/\s+/).filter(Boolean)).toEqual(['震', '度', '5', '弱']);
    expect(spacedIdeographs('Ein Satz.')).toBe('Ein Satz.');
    const set = { name: 'readability' as const, title: '', htmlDir: '', pages: [{ id: 'a', type: 'article', truth: '地震があった', url: '', with: [], without: [] }] };
    // One wrong character of six: most of the page is right, not all of it wrong.
    const [row] = languageRows(set, new Map([['a', '地震がああた']]));
    expect(row!.language).toBe('ja');
    expect(row!.f1).toBeCloseTo(5 / 6);
  });
});

describe("bench:quality's fundus halves", () => {
  it('are fixed by the publisher name hash (FNV-1a), even to develop on, odd held out', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fundusHalf('a')).toBe('dev');
    expect(fundusHalf('b')).toBe(fnv1a('b') % 2 === 0 ? 'dev' : 'held-out');
    expect(fundusHalf('b')).toBe('held-out');
  });
});

describe("Readability's expected article as text", () => {
  it('keeps blocks apart and words whole', () => {
    expect(expectedText('<div><p>Un <b>mot</b> entier</p><p>Deux</p><ul><li>trois</li><li>quatre</li></ul></div>')).toBe('Un mot entier\n\nDeux\n\ntrois\n\nquatre');
  });
});
