/**
 * Text from the user (a URL list, an argument) shown back on a terminal: its
 * control characters escaped, so that a hostile list cannot write to the
 * terminal (ESC ] 0 ; … BEL sets its title, ESC [ 2 J clears it) through a
 * message that quotes it. Line breaks stay: messages may have several lines.
 */

/** C0 controls but tab and line feed, DEL, and the C1 controls (U+0080-U+009F: 0x9B is a CSI of its own). */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
