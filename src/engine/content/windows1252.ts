/**
 * windows-1252's characters for the bytes 0x80-0x9F (curly quotes, the euro sign, dashes...), in
 * byte order; the bytes it leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) stand for themselves.
 * The HTTP engine decodes with it (http/charset.ts) and the extraction repairs double-encoded
 * text with it (inPage.ts).
 */
export const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';
