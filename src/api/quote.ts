/**
 * User input quoted in a message (a URL, a flag's value, a job id, a header name): escaped by one
 * function, so that input can neither write to the terminal (ESC ] 0 ; … BEL sets its title) nor start
 * a line of its own that passes for a message of webjobs (a line feed, then "webjobs: ...").
 */

/** C0 controls but tab, DEL, and the C1 controls (U+0080-U+009F: 0x9B is a CSI of its own). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/** `text` with its control characters escaped: a line feed as \n, any other as \xNN. */
export function escapeInput(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\n' ? '\\n' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/** `text` escaped and between double quotes, as messages quote input. */
export const quoted = (text: string): string => `"${escapeInput(text)}"`;
