// GitHub's issue search (GET /search/issues, https://docs.github.com/rest/search/search#search-issues-and-pull-requests):
// { total_count, incomplete_results, items: [{ id, number, title, body, html_url, labels: [{ name }],
// state, created_at, pull_request?, ... }] }, 100 per page, following Link rel="next" up to max_pages.
// The listing counts as complete (so that issues missing from it are closed) only when GitHub says
// its results are complete and no page was left unread.
import type { SourceConfig } from './config.ts';
import { type FeedAccess, FeedError, fetchText, type FetchLimits } from './http.ts';
import type { RawItem } from './mapper.ts';

export const GITHUB_API_VERSION = '2022-11-28';
const PER_PAGE = 100;

export interface GithubRead {
  items: RawItem[];
  complete: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rel="next" address of a Link header, if any. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>(.*)/.exec(part.trim());
    const rel = match && /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(match[2]!)?.[1];
    if (rel && rel.toLowerCase().split(/\s+/).includes('next')) return match[1];
  }
  return undefined;
}

export function firstPageUrl(source: SourceConfig): string {
  const params = new URLSearchParams({ q: source.query!, per_page: String(PER_PAGE), sort: 'created', order: 'desc' });
  return `${source.url}/search/issues?${params}`;
}

function toRawItem(issue: Record<string, unknown>): RawItem {
  const body = typeof issue.body === 'string' ? issue.body.replace(/<!--[\s\S]*?-->/g, '') : '';
  return {
    id: issue.id,
    title: issue.title,
    // Markdown: kept as text (an HTML strip would eat `Vec<T>`); only template comments go.
    text: body,
    tags: Array.isArray(issue.labels) ? issue.labels.map((l) => (isObject(l) ? l.name : l)) : [],
    url: issue.html_url,
    date: issue.created_at,
  };
}

/** `warn` hears of what makes the sync weaker than configured (no token, a partial listing). */
export async function readGithubIssues(
  source: SourceConfig,
  { limits, access }: { limits: FetchLimits; access: FeedAccess },
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Promise<GithubRead> {
  const headers: Record<string, string> = { accept: 'application/vnd.github+json', 'x-github-api-version': GITHUB_API_VERSION };
  if (source.tokenEnv) {
    const token = env[source.tokenEnv];
    if (token) headers.authorization = `Bearer ${token}`;
    else warn(`${source.tokenEnv} is not set: searching without a token (lower rate limit)`);
  }
  const origin = new URL(source.url).origin;
  const items: RawItem[] = [];
  let complete = true;
  let url: string | undefined = firstPageUrl(source);
  for (let page = 1; url; page++) {
    if (page > source.maxPages) {
      complete = false;
      warn(`stopped after max_pages (${source.maxPages}); issues beyond it are neither updated nor closed`);
      break;
    }
    const response = await fetchText(url, headers, limits, access);
    let doc: unknown;
    try {
      doc = JSON.parse(response.body);
    } catch (err) {
      throw new FeedError(`${url}: not valid JSON: ${(err as Error).message}`);
    }
    if (!isObject(doc) || !Array.isArray(doc.items)) throw new FeedError(`${url}: not a GitHub search response (no "items" array)`);
    if (doc.incomplete_results === true) {
      complete = false;
      warn('GitHub reported incomplete_results: nothing is closed this time');
    }
    for (const issue of doc.items) {
      // Pull requests share the endpoint; closed issues are gone (they close here too).
      if (isObject(issue) && (issue.pull_request !== undefined || issue.state === 'closed')) continue;
      items.push(toRawItem(isObject(issue) ? issue : {}));
    }
    const next = nextLink(response.headers.get('link'));
    // The token goes to the configured API only, never to a host a Link header names.
    if (next && new URL(next, url).origin !== origin) throw new FeedError(`${url}: Link rel="next" leads off ${origin}`);
    url = next ? new URL(next, url).href : undefined;
  }
  return { items, complete };
}
