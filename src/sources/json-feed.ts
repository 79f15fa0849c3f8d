// JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/), and 1.0, which it reads the same way:
// id, title (else summary), content_html / content_text, url (else external_url), tags,
// date_published (else date_modified).
import { FeedError } from './http.ts';
import type { RawItem } from './mapper.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseJsonFeed(text: string, url: string): RawItem[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new FeedError(`${url}: not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(doc) || typeof doc.version !== 'string' || !doc.version.startsWith('https://jsonfeed.org/version/1')) {
    throw new FeedError(`${url}: not a JSON Feed (no "version": "https://jsonfeed.org/version/1.1")`);
  }
  if (!Array.isArray(doc.items)) throw new FeedError(`${url}: JSON Feed without an "items" array`);
  return doc.items.map((entry): RawItem => {
    const item = isObject(entry) ? entry : {};
    return {
      id: item.id,
      title: item.title ?? item.summary,
      html: item.content_html,
      text: item.content_text ?? item.summary,
      tags: Array.isArray(item.tags) ? item.tags : [],
      url: item.url ?? item.external_url,
      date: item.date_published ?? item.date_modified,
    };
  });
}
