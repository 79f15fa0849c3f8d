// RSS 2.0 (https://www.rssboard.org/rss-specification): <rss><channel><item>...
// id = guid, else link; body = content:encoded, else description; date = pubDate, else dc:date.
import { FeedError } from './http.ts';
import type { RawItem } from './mapper.ts';
import { isObject, list, parseXml, textOf } from './xml.ts';

export function parseRss(text: string, url: string): RawItem[] {
  const doc = parseXml(text, url);
  const channel = isObject(doc.rss) ? list(doc.rss.channel)[0] : undefined;
  if (!isObject(channel)) throw new FeedError(`${url}: not an RSS 2.0 feed (no <rss><channel>)`);
  return list(channel.item).map((entry): RawItem => {
    const item = isObject(entry) ? entry : {};
    const link = textOf(item.link);
    return {
      id: textOf(item.guid) ?? link,
      title: textOf(item.title),
      html: textOf(item['content:encoded']) ?? textOf(item.description),
      tags: list(item.category).map(textOf),
      url: link ?? permalinkGuid(item.guid),
      date: textOf(item.pubDate) ?? textOf(item['dc:date']),
    };
  });
}

/** A guid is the item's address unless it says isPermaLink="false". */
function permalinkGuid(guid: unknown): string | undefined {
  const node = list(guid)[0];
  const permalink = isObject(node) ? node['@_isPermaLink'] : undefined;
  return permalink === 'false' ? undefined : textOf(node);
}
