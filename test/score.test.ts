import { describe, expect, it } from 'vitest';
import { pageF1, scorePage, shingles, stripMarkdown, summarise, tokenize } from '../src/bench/score.js';

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

describe('stripMarkdown', () => {
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
    const text = stripMarkdown(md);
    expect(tokenize(text)).toEqual(
      tokenize(
        'Title here Some bold and emphasis with a link text and code ' +
          'first item second item bullet item quoted words const answer 42 ' +
          'Name Score Ann 7 A snake_case word 1984 and a star',
      ),
    );
    expect(text).not.toMatch(/https?:|img_1|alt words|\*\*|```/);
  });
});
