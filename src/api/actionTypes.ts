/**
 * Page actions' shapes (Firecrawl v2's, plus `repeat` and `collect` on scroll) and
 * what they give back; checked in actions.ts, run by engine/browser/actions.ts.
 */

export type Action =
  | { type: 'wait'; milliseconds: number; selector?: undefined }
  | { type: 'wait'; selector: string; milliseconds?: undefined }
  | { type: 'click'; selector: string; all?: boolean }
  | { type: 'write'; text: string }
  | { type: 'press'; key: string }
  | {
      type: 'scroll';
      direction?: 'up' | 'down';
      selector?: string;
      /** webjobs extension: scroll up to this many times, each time waiting for new content; stops early when none comes. */
      repeat?: number;
      /** webjobs extension: keep the text of elements a virtualized list removes while scrolling (in the Markdown, once each, in order). */
      collect?: boolean;
    }
  | { type: 'screenshot'; fullPage?: boolean }
  | { type: 'scrape' }
  | { type: 'executeJavascript'; script: string }
  | { type: 'pdf'; landscape?: boolean; scale?: number; format?: PdfPaper };

export type ActionType = Action['type'];
export const ACTION_TYPES: readonly ActionType[] = ['wait', 'click', 'write', 'press', 'scroll', 'screenshot', 'scrape', 'executeJavascript', 'pdf'];

export const PDF_PAPERS = ['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'] as const;
export type PdfPaper = (typeof PDF_PAPERS)[number];

/** What the actions of one page gave, in the record as Firecrawl has it. */
export interface ActionsResult {
  /** Files (a path on this machine, a URL on serve), one per screenshot action, in order. */
  screenshots: string[];
  /** The page's HTML at each scrape action. */
  scrapes: { url: string; html: string }[];
  /** Each executeJavascript's value: that of its last expression. */
  javascriptReturns: { type: string; value: unknown }[];
  /** Files, one per pdf action, in order. */
  pdfs: string[];
}

/** Firecrawl v2's profile: cookies and local storage kept under a name between runs. */
export interface ProfileOptions {
  name: string;
  /** Save the cookies and local storage after the page (default true); false: only load them. */
  saveChanges?: boolean;
}

/** A cookie a profile keeps, as the browser had it. */
export interface ProfileCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix time in seconds; absent: a session cookie. */
  expires?: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

/** What a profile keeps: the browser context's cookies, and local storage by origin. */
export interface ProfileState {
  cookies: ProfileCookie[];
  origins: Record<string, Record<string, string>>;
}

/** One profile of one owner (serve: an API key), as the job's store keeps it; the engine loads and saves it. */
export interface ProfileHandle {
  name: string;
  load(): Promise<ProfileState | undefined>;
  /** Absent when the request said saveChanges: false. */
  save?(state: ProfileState): Promise<void>;
}
