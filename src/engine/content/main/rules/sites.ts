/**
 * Names that belong to one vendor, service or piece of software, each with where it is seen.
 * The rules in names.ts and pageKind.ts take them from here, so that what is generic and what
 * is one vendor's stays apart: a name here helps only on the pages that vendor serves.
 */

export interface VendorName {
  /** The word, class, selector or pattern, as the rule that uses it takes it. */
  name: string;
  /** Whose it is, and where it shows. */
  seen: string;
}

/** Words of class names that are furniture (FURNITURE_NAMES). */
export const VENDOR_FURNITURE_WORDS: readonly VendorName[] = [
  { name: 'onetrust', seen: "OneTrust's cookie consent banner, on many news and shop sites" },
  { name: 'sharedaddy', seen: "Jetpack's share buttons under WordPress posts" },
  { name: 'adsbygoogle', seen: "Google AdSense's ad slots" },
  { name: 'outbrain', seen: "Outbrain's recommended-stories widget under articles" },
  { name: 'taboola', seen: "Taboola's recommended-stories widget under articles" },
];

/** Words of class names that are furniture whatever share of the text they hold (ALWAYS_FURNITURE_NAMES). */
export const VENDOR_ALWAYS_FURNITURE_WORDS: readonly VendorName[] = [
  { name: 'onetrust', seen: "OneTrust's cookie consent banner, which can hold a third of a thin page's text" },
];

/** Classes that hide an element at every screen size (HIDING_CLASSES). */
export const VENDOR_HIDING_CLASSES: readonly VendorName[] = [
  { name: 'aok-hidden', seen: "Amazon's product pages: blocks its scripts show later" },
];

/** A post quoted from a social network, as its embed code leaves it (EMBEDDED_POST). */
export const EMBEDDED_POSTS: readonly VendorName[] = [
  { name: 'blockquote.twitter-tweet', seen: "X's (Twitter's) embed code" },
  { name: 'blockquote.instagram-media', seen: "Instagram's embed code" },
  { name: 'blockquote.tiktok-embed', seen: "TikTok's embed code" },
  { name: 'blockquote.bluesky-embed', seen: "Bluesky's embed code" },
  { name: 'blockquote.mastodon-embed', seen: "Mastodon's embed code" },
  { name: 'blockquote.text-post-media', seen: "Threads' embed code" },
  { name: 'blockquote.reddit-embed-bq', seen: "Reddit's embed code" },
];

/** A blog's comment section by the id a comment service gives it (COMMENT_SECTIONS). */
export const COMMENT_SERVICES: readonly VendorName[] = [{ name: '#disqus_thread', seen: "Disqus's comment widget" }];

/** Forum software, as its `<meta name="generator">` names it (isForum): a pattern each. */
export const FORUM_SOFTWARE: readonly VendorName[] = [
  { name: 'discourse', seen: 'Discourse' },
  { name: 'vbulletin', seen: 'vBulletin' },
  { name: 'xenforo', seen: 'XenForo' },
  { name: 'phpbb', seen: 'phpBB' },
  { name: 'invision', seen: 'Invision Community' },
  { name: 'mybb', seen: 'MyBB' },
  { name: 'simple machines', seen: 'Simple Machines Forum' },
  { name: 'nodebb', seen: 'NodeBB' },
  { name: 'flarum', seen: 'Flarum' },
  { name: 'vanilla', seen: 'Vanilla Forums' },
];

/** Forum software known by the id of its root element (isForum). */
export const FORUM_ROOT_IDS: readonly { html?: string; body?: string; seen: string }[] = [
  { html: 'XF', seen: 'XenForo: <html id="XF">' },
  { body: 'phpbb', seen: 'phpBB: <body id="phpbb">' },
];

/** The names of a table, for the rule that takes them. */
export const namesOf = (table: readonly VendorName[]) => table.map((entry) => entry.name);
