/**
 * The peer bench:quality measures in the same run: Readability and turndown
 * through jsdom in Node, the usual way of doing what webjobs does inside the page.
 * It is why webjobs runs extraction in Chromium: measured, not assumed.
 */
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';

export interface PeerResult {
  markdown?: string;
  error?: string;
  /** CPU time this process spent on the page (parse, Readability, turndown). */
  cpuMs: number;
}

export function jsdomMarkdown(html: string, url: string): PeerResult {
  const before = process.cpuUsage();
  const cpuMs = () => {
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  let dom: JSDOM | undefined;
  try {
    dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
    const article = new Readability(dom.window.document).parse();
    const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
    service.use(gfm);
    const markdown = article?.content ? service.turndown(article.content) : '';
    return { markdown, cpuMs: cpuMs() };
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0], cpuMs: cpuMs() };
  } finally {
    // Closed on failure too: an open window keeps its whole document alive.
    dom?.window.close();
  }
}
