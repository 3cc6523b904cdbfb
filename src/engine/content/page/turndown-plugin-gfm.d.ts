/** turndown-plugin-gfm ships no types: its plugins, as turndown takes them. */
declare module 'turndown-plugin-gfm' {
  type Plugin = import('turndown').Plugin;
  export const gfm: Plugin;
  export const tables: Plugin;
  export const strikethrough: Plugin;
  export const taskListItems: Plugin;
  export const highlightedCodeBlock: Plugin;
}
