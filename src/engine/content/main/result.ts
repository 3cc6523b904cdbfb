/** What main-content selection gives: the content's root, and a warning when there is reason to doubt it. */
export interface MainContent {
  root: Element;
  /** Set when the selection looked too short and the plainer main region was returned instead. */
  warning?: string;
}
