/**
 * The layout of a PDF's text (pdfLayout.ts) is linear in the size of the text: a
 * page of many tiny lines that make one paragraph, or one line of many pieces,
 * took time growing with the square of the text (a test of the paragraph's end,
 * and growing it, read the whole paragraph on every line: minutes for these).
 */
import { describe, expect, it } from 'vitest';
import { layoutPdf, linesOf, type PdfTextItem } from '../src/engine/content/pdfLayout.js';

/** A piece of text at (x, y), in a type `size` high, as pdf.js gives it. */
const item = (str: string, x: number, y: number, size = 1, hasEOL = false): PdfTextItem => ({ str, transform: [size, 0, 0, size, x, y], width: str.length * size * 0.5, height: size, hasEOL });

describe('the layout of a PDF page', () => {
  it('joins 100,000 tiny lines into one paragraph, hyphenated words whole again, in linear time', () => {
    const count = 100_000;
    const items: PdfTextItem[] = [];
    const expected: string[] = [];
    for (let i = 0; i < count; i++) {
      // Each line a unit below the one before, in a type a unit high: one paragraph.
      const text = i % 2 === 0 ? `line ${i} of a long paragraph ends in a hyph-` : `enated word ${i}`;
      items.push(item(text, 10, 1_000_000 - i, 1, true));
    }
    for (let i = 0; i < count; i += 2) expected.push(`line ${i} of a long paragraph ends in a hyphenated word ${i + 1}`);
    const lines = linesOf(items);
    expect(lines).toHaveLength(count);
    const { markdown, html } = layoutPdf([lines]);
    expect(markdown).toBe(expected.join(' '));
    expect(html).toBe(`<p>${expected.join(' ')}</p>`);
  });

  it('puts 200,000 pieces of text on one baseline together into one line, in linear time', () => {
    const count = 200_000;
    const items = Array.from({ length: count }, (_, i) => item(`w${i}`, i * 10, 500));
    const lines = linesOf(items);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.text).toBe(Array.from({ length: count }, (_, i) => `w${i}`).join(' '));
  });

  it('makes headings of larger type and of the outline, by size, and divides pages', () => {
    const page1 = linesOf([item('Report', 10, 700, 20), item('Body text that runs on', 10, 650, 10), item('to a second line.', 10, 638, 10), item('Named in the outline', 10, 600, 10)]);
    const page2 = linesOf([item('Part two', 10, 700, 14), item('More text.', 10, 680, 10)]);
    const { markdown, firstHeading } = layoutPdf([page1, page2], new Map([['Named in the outline', 3]]));
    expect(markdown).toBe(['# Report', 'Body text that runs on to a second line.', '### Named in the outline', '---', '## Part two', 'More text.'].join('\n\n'));
    expect(firstHeading).toBe('Report');
  });
});
