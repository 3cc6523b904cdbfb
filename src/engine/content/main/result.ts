import type { TakenFacts } from './passes/stamps.js';

/** What main-content selection gives: the content's root, and a warning when there is reason to doubt it. */
export interface MainContent {
  root: Element;
  /** Set when the selection looked too short and the plainer main region was returned instead. */
  warning?: string;
  /** What the date line and the byline taken out of the body said (passes/stamps.ts): the record's metadata where the markup is silent. */
  taken?: TakenFacts;
}
