/**
 * Attributes the selection sets on the page's copy while it works, and removes before anyone sees the
 * page again.
 */
export const HIDDEN = 'data-webjobs-hidden';

export const LEVEL = 'data-webjobs-level';

/** An inline element the page shows as a block (see separateBlocks). */
export const BLOCK = 'data-webjobs-block';

/** A heading's id, kept aside while Readability reads the page. */
export const ANCHOR = 'data-webjobs-anchor';
