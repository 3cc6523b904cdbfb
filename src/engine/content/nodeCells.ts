/**
 * The parser of a table cell's HTML in Node (markdown/cellParser.ts): domino, the one turndown's Node
 * build parses strings with, so that cells read as they always have. Loaded by the first table, not with
 * turndown: 52 modules, ~80 ms of CPU that every extraction worker spent at start.
 */
import { createRequire } from 'node:module';

interface Domino {
  createDocument(html: string): Document;
}

let domino: Domino | undefined;

/** `html` parsed by domino (a dependency of ours, at the version turndown's Node build takes). */
export function dominoDocument(html: string): Document {
  domino ??= createRequire(import.meta.url)('@mixmark-io/domino') as Domino;
  return domino.createDocument(html);
}
