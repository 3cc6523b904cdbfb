/**
 * Minimal PDF documents written byte by byte (one Helvetica font, pages of text
 * drawn with PDF operators, link annotations), for tests that need a PDF of a
 * given shape: many tiny lines, many annotations. pdf.js reads them as any PDF.
 */
export interface PdfPageSource {
  /** The page's content stream: PDF operators (BT ... ET). */
  content: string;
  /** Annotation dictionaries, written into the page's /Annots array. */
  annots?: string[];
}

export function pdfDocument(pages: PdfPageSource[]): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const pagesId = add('');
  const kids = pages.map((page) => {
    const content = add(`<< /Length ${Buffer.byteLength(page.content, 'latin1')} >>\nstream\n${page.content}\nendstream`);
    const annots = page.annots ? ` /Annots [${page.annots.join('\n')}]` : '';
    return add(`<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R${annots} >>`);
  });
  objects[pagesId - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const catalog = add(`<< /Type /Catalog /Pages ${pagesId} 0 R >>`);
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const offset = Buffer.byteLength(out, 'latin1');
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/**
 * One page of `count` lines of `text`, each in a type 0.05 high, 0.026 below the
 * one before: lines close enough to make one paragraph, about 30,000 to a page.
 */
export function tinyLinesPdf(count: number, text: string): Buffer {
  return pdfDocument([{ content: `BT /F1 0.05 Tf 10 780 Td 0.026 TL\n${`(${text})'\n`.repeat(count)}ET` }]);
}

/** One page with a heading and `count` link annotations, each to its own URL under `base`. */
export function manyLinksPdf(count: number, base: string): Buffer {
  const annots = Array.from({ length: count }, (_, i) => `<< /Type /Annot /Subtype /Link /Rect [0 0 1 1] /A << /S /URI /URI (${base}${i}) >> >>`);
  return pdfDocument([{ content: 'BT /F1 24 Tf 72 700 Td (Many links) Tj /F1 12 Tf 0 -40 Td (Some text under the heading.) Tj ET', annots }]);
}
