/**
 * A message shown on a terminal: the control characters of each of its lines
 * escaped (api/quote.ts escapeInput), so that a hostile list cannot write to the
 * terminal (ESC ] 0 ; … BEL sets its title, ESC [ 2 J clears it) through a
 * message that quotes it. The message's own line breaks stay: messages may have
 * several lines; input quoted in one has its line feeds escaped where it is quoted.
 */
import { escapeInput } from '../api/quote.js';

export function printable(text: string): string {
  return text.split('\n').map(escapeInput).join('\n');
}
