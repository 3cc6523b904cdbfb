import { describe, expect, it } from 'vitest';
import { readerText, splitCells } from '../bench/readerText.js';
import { sampleByType, wcxbPageType, type BenchPage } from '../bench/sets.js';
import { meanOf, pageF1, scorePage, shingles, snippetRate, summarise, tokenize, wordScore, wordTokens } from '../bench/score.js';

describe('tokenize', () => {
  it('keeps case and splits on non-word characters, Unicode letters included', () => {
    expect(tokenize("The naïve café's über-straße, don't 42_x!")).toEqual([
      'The', 'naïve', 'café', 's', 'über', 'straße', 'don', 't', '42_x',
    ]);
    expect(tokenize('Привет, мир. 東京')).toEqual(['Привет', 'мир', '東京']);
  });
});

describe('shingles', () => {
  it('is the multiset of overlapping 4-token runs', () => {
    const counts = shingles('a b c d a b c d');
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(5);
    expect(counts.get(['a', 'b', 'c', 'd'].join('\u0001'))).toBe(2);
    expect(shingles('a b c').size).toBe(0);
  });
});

describe('scorePage', () => {
  it('counts shared, extra and missing shingles, normalised per page', () => {
    // truth: abcd bcde; predicted: abcd bcdx -> TP 1, FP 1, FN 1
    const s = scorePage('a b c d e', 'a b c d x');
    expect(s.tp).toBeCloseTo(1 / 3);
    expect(s.fp).toBeCloseTo(1 / 3);
    expect(s.fn).toBeCloseTo(1 / 3);
    expect(s.precision).toBeCloseTo(0.5);
    expect(s.recall).toBeCloseTo(0.5);
  });

  it('treats repeated shingles as a multiset', () => {
    // truth: abcd x2, bcda, cdab, dabc (5); predicted: abcd -> TP 1, FP 0, FN 4
    const s = scorePage('a b c d a b c d', 'a b c d');
    expect(s.precision).toBe(1);
    expect(s.recall).toBeCloseTo(0.2);
  });

  it('keeps case, and an empty prediction has no precision', () => {
    expect(scorePage('The cat sat down', 'the cat sat down').precision).toBe(0);
    const empty = scorePage('one two three four', '');
    expect(empty.precision).toBeNull();
    expect(empty.recall).toBe(0);
    expect(pageF1(empty)).toBe(0);
  });
});

describe('summarise', () => {
  it('takes F1 of the mean precision and the mean recall', () => {
    const a = scorePage('a b c d e', 'a b c d x'); // P 1/2, R 1/2
    const b = scorePage('one two three four', 'one two three four five six'); // P 1/3, R 1
    const empty = scorePage('w x y z', ''); // P none, R 0
    const { precision, recall, f1 } = summarise([a, b, empty]);
    expect(precision).toBeCloseTo((1 / 2 + 1 / 3) / 2); // 5/12, the empty page has no precision
    expect(recall).toBeCloseTo((1 / 2 + 1 + 0) / 3); // 1/2
    expect(f1).toBeCloseTo((2 * (5 / 12) * (1 / 2)) / (5 / 12 + 1 / 2)); // 0.4545...
  });
});

describe('readerText', () => {
  it('drops syntax, link targets and images, keeping the text', () => {
    const md = [
      '# Title here',
      '',
      'Some **bold** and _emphasis_ with a [link text](https://example.com/a_b?x=1 "a title") and `code`.',
      '',
      '![alt words](https://example.com/img_1.png)',
      '',
      '[![logo](https://example.com/l.png)](https://example.com/home)',
      '',
      '1.  first item',
      '2.  second item',
      '-   bullet item',
      '',
      '> quoted words',
      '',
      '```js',
      'const answer = 42;',
      '```',
      '',
      '| Name | Score |',
      '| --- | --- |',
      '| Ann | 7 |',
      '',
      'A snake\\_case word, 1984\\. and a \\* star.',
    ].join('\n');
    const text = readerText(md);
    expect(text).toBe(
      [
        'Title here',
        'Some bold and emphasis with a link text and code.',
        'first item',
        'second item',
        'bullet item',
        'quoted words',
        'const answer = 42;',
        'Name\tScore\nAnn\t7',
        'A snake_case word, 1984. and a * star.',
      ].join('\n\n'),
    );
  });

  it('keeps underscores inside words, which are not emphasis', () => {
    expect(readerText('call snake_case_name and __init__ or _this_ one')).toBe('call snake_case_name and init or this one');
  });

  it('reads escapes and entities as the characters they stand for', () => {
    expect(readerText('\\*not emphasis\\*, 5 \\> 3, \\[not a link\\](x), AT&amp;T &copy; 2024')).toBe(
      '*not emphasis*, 5 > 3, [not a link](x), AT&T \u00a9 2024',
    );
  });

  it('drops an image inside a link, alt text and all, and keeps the rest of the link text', () => {
    expect(readerText('[![Logo alt](https://x.test/logo.png) Home page](https://x.test/ "Go home")')).toBe('Home page');
    expect(readerText('See ![a chart of sales](c.png "Sales") below.')).toBe('See below.');
    expect(readerText('Mail <https://x.test/contact> now')).toBe('Mail https://x.test/contact now');
  });

  it('turns soft breaks into spaces, hard breaks into newlines, and drops thematic breaks', () => {
    expect(readerText('one\ntwo  \nthree\\\nfour\n\n---\n\nfive')).toBe('one two\nthree\nfour\n\nfive');
  });

  it('keeps code blocks as written, indentation included', () => {
    expect(readerText('Run:\n\n```\nif x:\n    go()\n```\n\n    indented  code')).toBe('Run:\n\nif x:\n    go()\n\nindented  code');
  });

  it('keeps raw HTML verbatim: turndown never writes tags, so they were page text', () => {
    expect(readerText('Wrap it in a <div> element.')).toBe('Wrap it in a <div> element.');
  });

  it('reads a GFM table as tab-separated cells without pipes or the delimiter row', () => {
    const md = [
      '| Drug | **Brand** name | Route |',
      '| :--- | :-: | ---: |',
      '| Semaglutide | [Wegovy](https://x.test/w) \\| Ozempic | `once | weekly` |',
      '| 1. first | # 2 |  |',
    ].join('\n');
    // GFM splits at unescaped pipes even inside code spans; cells hold inline content only.
    expect(readerText(md)).toBe('Drug\tBrand name\tRoute\nSemaglutide\tWegovy | Ozempic\t`once\tweekly`\n1. first\t# 2');
  });

  it('reads a table inside a list item and a paragraph that only looks like one', () => {
    expect(readerText('-   item\n\n    | a | b |\n    | --- | --- |\n    | c | d |')).toBe('item\n\na\tb\nc\td');
    expect(readerText('cats | dogs\nmore | text')).toBe('cats | dogs more | text');
  });
});

describe('splitCells', () => {
  it('splits at unescaped pipes and drops the outer ones', () => {
    expect(splitCells('| a | b \\| c |')).toEqual(['a', 'b \\| c']);
    expect(splitCells('a | b')).toEqual(['a', 'b']);
    expect(splitCells('| a | b \\|')).toEqual(['a', 'b \\|']);
  });
});

describe('wordScore (WCXB)', () => {
  it('lower-cases Unicode \\w+ tokens as Python re does', () => {
    expect(wordTokens("The Naïve CAFÉ's x_1 ²³ ٣٤ 東京")).toEqual(['the', 'naïve', 'café', 's', 'x_1', '²³', '٣٤', '東京']);
    // Combining marks are not \\w in Python: a decomposed é splits the word.
    expect(wordTokens('cafe\u0301 ok')).toEqual(['cafe', 'ok']);
  });

  it('counts clipped word overlap over predicted and reference totals', () => {
    // reference: a a b c (4); predicted: a b b d (4); overlap: a 1, b 1 -> 2
    const s = wordScore('a a b c', 'A B b d');
    expect(s.precision).toBe(0.5);
    expect(s.recall).toBe(0.5);
    expect(s.f1).toBe(0.5);
    const t = wordScore('one two three four', 'one two');
    expect(t).toEqual({ precision: 1, recall: 0.5, f1: 2 / 3 });
  });

  it('follows evaluate.py on empty sides', () => {
    expect(wordScore('', '')).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(wordScore('...', ' ! ')).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(wordScore('', 'something')).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(wordScore('something', '')).toEqual({ precision: 0, recall: 0, f1: 0 });
    expect(wordScore('abc', 'xyz')).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it('averages P, R and F1 over pages: the mean of F1s, not the F1 of means', () => {
    const pages = [wordScore('a b', 'a b'), wordScore('a b c d', 'a')]; // F1 1 and 0.4
    const mean = meanOf(pages, ['precision', 'recall', 'f1'] as const);
    expect(mean.precision).toBe(1);
    expect(mean.recall).toBeCloseTo(0.625);
    expect(mean.f1).toBeCloseTo(0.7);
    expect(meanOf([], ['f1'] as const)).toEqual({ f1: 0 });
  });
});

describe('snippetRate (WCXB)', () => {
  it('is the share of snippets found case-insensitively as substrings, 1 with none', () => {
    expect(snippetRate('Hello Big World', ['big world', 'nowhere'])).toBe(0.5);
    expect(snippetRate('anything', [])).toBe(1);
    expect(snippetRate('', ['x'])).toBe(0);
  });
});

describe('bench:quality page selection', () => {
  const page = (id: string, type: string): BenchPage => ({ id, type, truth: '', url: '', with: [], without: [] });

  it('samples every k-th page of each type, in proportion, exactly N in all', () => {
    const pages = [
      ...Array.from({ length: 60 }, (_, i) => page(`a${String(i).padStart(2, '0')}`, 'article')),
      ...Array.from({ length: 30 }, (_, i) => page(`f${String(i).padStart(2, '0')}`, 'forum')),
      ...Array.from({ length: 10 }, (_, i) => page(`p${i}`, 'product')),
    ];
    const sample = sampleByType(pages, 10);
    expect(sample.map((p) => p.id)).toEqual(['a00', 'a10', 'a20', 'a30', 'a40', 'a50', 'f00', 'f10', 'f20', 'p0']);
    expect(sampleByType(pages, 7).length).toBe(7);
    expect(sampleByType(pages, 500)).toBe(pages);
  });

  it("reads WCXB's page type as evaluate.py does", () => {
    expect(wcxbPageType({ _internal: { page_type: { primary: 'category' } } })).toBe('collection');
    expect(wcxbPageType({ _internal: { page_type: 'forum' } })).toBe('forum');
    expect(wcxbPageType({ _internal: null })).toBe('article');
    expect(wcxbPageType({})).toBe('article');
  });
});
