// A local stand-in for the places external gigs come from, over real HTTP:
//   any path set with serve()   a feed (JSON Feed, RSS, Atom, or anything broken) with a status,
//                                content type, optional delay and headers (a redirect's Location)
//   GET /search/issues          GitHub's issue search: the `github.issues` paginated `pageSize` at a
//                                time with GitHub's Link header (rel="next", "last", "prev", "first"),
//                                401 "Bad credentials" when a token is required and not sent
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenLocal, closeServer } from './local-server.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'feeds');

/** A fixture file's text (tests/fixtures/feeds/<name>). */
export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

export interface FeedRoute {
  body: string;
  status?: number;
  contentType?: string;
  /** Answer only after this long (for the timeout). */
  delayMs?: number;
  /** More response headers (a redirect's Location). */
  headers?: Record<string, string>;
}

export interface FakeGithubSearch {
  issues: object[];
  /** Items per page (GitHub's per_page, capped here so that a few issues make several pages). */
  pageSize: number;
  incompleteResults: boolean;
  /** When set, requests without `Authorization: Bearer <token>` get 401. */
  requireToken: string | undefined;
}

export interface FakeFeeds {
  url: string;
  serve(path: string, route: FeedRoute): void;
  github: FakeGithubSearch;
  requests: { path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export async function startFakeFeeds(): Promise<FakeFeeds> {
  const routes = new Map<string, FeedRoute>();
  const requests: FakeFeeds['requests'] = [];
  const github: FakeGithubSearch = { issues: [], pageSize: 100, incompleteResults: false, requireToken: undefined };
  let base = '';

  function searchIssues(url: URL, req: http.IncomingMessage, res: http.ServerResponse) {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
    if (github.requireToken && req.headers.authorization !== `Bearer ${github.requireToken}`) {
      return json(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    }
    if (!url.searchParams.get('q'))
      return json(422, { message: 'Validation Failed', errors: [{ resource: 'Search', field: 'q', code: 'missing' }] });
    const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100, github.pageSize);
    const page = Number(url.searchParams.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(github.issues.length / perPage));
    const pageUrl = (n: number) => {
      const u = new URL(url.pathname, base);
      u.search = url.search;
      u.searchParams.set('page', String(n));
      return u.href;
    };
    const links: string[] = [];
    if (page < last) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`);
    if (page > 1) links.push(`<${pageUrl(page - 1)}>; rel="prev"`, `<${pageUrl(1)}>; rel="first"`);
    json(
      200,
      {
        total_count: github.issues.length,
        incomplete_results: github.incompleteResults,
        items: github.issues.slice((page - 1) * perPage, page * perPage),
      },
      links.length ? { link: links.join(', ') } : {},
    );
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    if (req.method === 'GET' && url.pathname === '/search/issues') return searchIssues(url, req, res);
    const route = routes.get(url.pathname);
    if (!route) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const send = () =>
      res
        .writeHead(route.status ?? 200, { 'content-type': route.contentType ?? 'application/octet-stream', ...route.headers })
        .end(route.body);
    if (route.delayMs) setTimeout(send, route.delayMs);
    else send();
  });
  base = await listenLocal(server);

  return {
    url: base,
    serve(p, route) {
      routes.set(p, route);
    },
    github,
    requests,
    close: () => closeServer(server),
  };
}
