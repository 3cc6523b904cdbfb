/** Turndown's browser build (no domino; markdown.ts), typed as the package's main entry. */
declare module 'turndown/lib/turndown.browser.es.js' {
  import TurndownService from 'turndown';
  export default TurndownService;
}
