/**
 * What a page may say it is: schema.org types in its JSON-LD, and the host names and paths of forum
 * software.
 */
/**
 * Where forum software puts a thread: a forum's own host name (forum., community.,
 * discuss.), or a thread's path (XenForo's /threads/, phpBB's viewtopic.php,
 * Discourse's /t/name/123, Invision's /topic/123-name, Stack Exchange's /questions/123).
 * "/topic/" or "/community/" alone name a news topic or a blog as often.
 */
export const FORUM_HOST = /^(forums?|community|discuss|discussions?|bbs|boards?|answers)\./i;

/** A site named for being a forum (physicsforums.com, warriorforum.com, avsforum.com), whatever its threads' paths. */
export const FORUM_NAME = /(^|\.)[a-z0-9-]*forums?\.[a-z]{2,}(\.[a-z]{2})?$/i;

export const THREAD_PATH =
  /\/(threads?|forums?|boards)\/|\/thread-\d|(showthread|viewtopic|showtopic)(\.php)?\b|\/t\/[^/]+\/\d+|\/topic\/\d+|\/questions\/\d+\/|\/r\/[^/]+\/comments\//i;

/** JSON-LD types by what they say the page is. */
export const ARTICLE_TYPES = ['Article', 'NewsArticle', 'BlogPosting', 'TechArticle', 'Report', 'ScholarlyArticle', 'HowTo', 'Recipe'];

/** A discussion (a forum thread, a Q&A page), whose comments are its content. */
export const DISCUSSION_TYPES = ['DiscussionForumPosting', 'QAPage', 'Question', 'SocialMediaPosting', 'Comment'];

export const PRODUCT_TYPES = ['Product'];
