// Atom 1.0 (RFC 4287): <feed xmlns="http://www.w3.org/2005/Atom"><entry>...
// url = the link rel="alternate" (or without rel); body = content, else summary; date = published, else updated.
import { FeedError } from './http.ts';
import type { RawItem } from './mapper.ts';
import { attr, deepText, isObject, list, parseXml, textOf } from './xml.ts';

/** Atom text constructs: type="html" is escaped HTML, "xhtml" is inline markup, "text" (the default) is text. */
function atomText(value: unknown): { html?: string; text?: string } {
  const node = list(value)[0];
  if (node === undefined) return {};
  const type = attr(node, 'type') ?? 'text';
  if (type === 'xhtml') return { text: deepText(node) };
  const content = textOf(node) ?? '';
  return type === 'html' ? { html: content } : { text: content };
}

function alternateLink(links: unknown): string | undefined {
  const all = list(links);
  const alternate = all.find((l) => (attr(l, 'rel') ?? 'alternate') === 'alternate') ?? all[0];
  return attr(alternate, 'href');
}

export function parseAtom(text: string, url: string): RawItem[] {
  const doc = parseXml(text, url);
  const feed = doc.feed;
  if (!isObject(feed)) throw new FeedError(`${url}: not an Atom feed (no <feed>)`);
  return list(feed.entry).map((entry): RawItem => {
    const e = isObject(entry) ? entry : {};
    const title = atomText(e.title);
    const content = atomText(e.content);
    const body = (content.html ?? content.text) ? content : atomText(e.summary);
    return {
      id: textOf(e.id),
      title: title.html ?? title.text,
      html: body.html,
      text: body.text,
      tags: list(e.category).map((c) => attr(c, 'term') ?? attr(c, 'label')),
      url: alternateLink(e.link),
      date: textOf(e.published) ?? textOf(e.updated),
    };
  });
}
