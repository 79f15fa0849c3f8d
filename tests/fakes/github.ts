// A local stand-in for GitHub's OAuth web flow and REST API, speaking its real protocol over HTTP:
//   GET  /login/oauth/authorize     the user "approves" at once: 302 to redirect_uri?code&state
//   POST /login/oauth/access_token  code -> token (JSON with Accept: application/json, else form);
//                                   errors come as 200 with an `error` field, as GitHub does
//   GET  /user                      the signed-in user, for `Authorization: Bearer|token <t>`
// Either of the last two can misbehave once: answer without end, or not at all.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { type FloodResult, flood, readBody, listenLocal, closeServer } from './local-server.ts';

export interface FakeGithubUser {
  id: number;
  login: string;
  name: string | null;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  user: FakeGithubUser;
}

export interface FakeGithub {
  url: string;
  clientId: string;
  clientSecret: string;
  /** Env for startTestServer pointing the server at this fake. */
  env: Record<string, string>;
  /** The user who approves the next authorizations (GitHub's "signed-in user"). */
  signInAs(user: FakeGithubUser): void;
  /** The next authorization is declined (GitHub redirects with error=access_denied). */
  denyNext(): void;
  /** The next answer of the token endpoint or of /user floods (see `floods`) or never comes. */
  misbehaveNext(endpoint: 'token' | 'user', how: 'flood' | 'stall'): void;
  /** How each flood ended, in order. */
  floods: Promise<FloodResult>[];
  /** Requests seen, for assertions: method, path, and the parsed body of token requests. */
  requests: { method: string; path: string; body?: Record<string, string>; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

const DOCS = 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors';
/** What a flood writes before it ends, unless the reader hangs up first. */
export const FLOOD_BYTES = 64 * 1024 * 1024;

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

export async function startFakeGithub(): Promise<FakeGithub> {
  const clientId = `Iv1.${randomBytes(8).toString('hex')}`;
  const clientSecret = randomBytes(20).toString('hex');
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, FakeGithubUser>();
  let user: FakeGithubUser = { id: 583231, login: 'octocat', name: 'The Octocat' };
  let deny = false;
  const requests: FakeGithub['requests'] = [];
  const misbehaving = new Map<'token' | 'user', 'flood' | 'stall'>();
  const floods: Promise<FloodResult>[] = [];
  const stalled = new Set<http.ServerResponse>();
  /** Misbehaves as told for this endpoint, once; false when it should answer normally. */
  const misbehaved = (endpoint: 'token' | 'user', res: http.ServerResponse): boolean => {
    const how = misbehaving.get(endpoint);
    if (!how) return false;
    misbehaving.delete(endpoint);
    if (how === 'stall') stalled.add(res);
    else floods.push(flood(res, '{"access_token":"', 'gho_0123456789abcdef', FLOOD_BYTES));
    return true;
  };

  /** The token endpoint's answer: JSON when asked for, else GitHub's default form encoding. */
  function tokenReply(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, string>) {
    if ((req.headers.accept ?? '').includes('application/json')) return json(res, 200, body);
    res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }).end(new URLSearchParams(body).toString());
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const entry: FakeGithub['requests'][number] = { method: req.method ?? '', path: url.pathname, headers: req.headers };
    requests.push(entry);
    try {
      if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        const redirectUri = url.searchParams.get('redirect_uri');
        const state = url.searchParams.get('state');
        if (url.searchParams.get('client_id') !== clientId || !redirectUri) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown client_id or no redirect_uri');
          return;
        }
        const back = new URL(redirectUri);
        if (deny) {
          deny = false;
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'The user has denied your application access.');
        } else {
          const code = randomBytes(10).toString('hex');
          codes.set(code, { clientId, redirectUri, user });
          back.searchParams.set('code', code);
        }
        if (state !== null) back.searchParams.set('state', state);
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }

      if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const raw = await readBody(req);
        const type = req.headers['content-type'] ?? '';
        const body: Record<string, string> = type.includes('json') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
        entry.body = body;
        if (misbehaved('token', res)) return;
        // Client credentials in the body (as GitHub documents) or as HTTP Basic.
        let id = body.client_id;
        let secret = body.client_secret;
        const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
        if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent);
        if (id !== clientId || secret !== clientSecret) {
          return tokenReply(req, res, {
            error: 'incorrect_client_credentials',
            error_description: 'The client_id and/or client_secret passed are incorrect.',
            error_uri: DOCS,
          });
        }
        const grant = body.code ? codes.get(body.code) : undefined;
        if (!grant) {
          return tokenReply(req, res, {
            error: 'bad_verification_code',
            error_description: 'The code passed is incorrect or expired.',
            error_uri: DOCS,
          });
        }
        codes.delete(body.code!); // single use
        if (body.redirect_uri && body.redirect_uri !== grant.redirectUri) {
          return tokenReply(req, res, {
            error: 'redirect_uri_mismatch',
            error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
            error_uri: DOCS,
          });
        }
        const accessToken = `gho_${randomBytes(18).toString('hex')}`;
        tokens.set(accessToken, grant.user);
        return tokenReply(req, res, { access_token: accessToken, token_type: 'bearer', scope: '' });
      }

      if (req.method === 'GET' && url.pathname === '/user') {
        if (misbehaved('user', res)) return;
        if (!req.headers['user-agent']) {
          res
            .writeHead(403, { 'content-type': 'text/plain' })
            .end('Request forbidden by administrative rules. Please make sure your request has a User-Agent header.');
          return;
        }
        const auth = /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
        const who = auth ? tokens.get(auth[1]!) : undefined;
        if (!who) return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
        return json(res, 200, {
          login: who.login,
          id: who.id,
          node_id: `U_${Buffer.from(String(who.id)).toString('base64')}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${who.id}?v=4`,
          html_url: `https://github.com/${who.login}`,
          type: 'User',
          site_admin: false,
          name: who.name,
          company: null,
          blog: '',
          location: null,
          email: null,
          bio: null,
          public_repos: 8,
          followers: 20,
          following: 0,
          created_at: '2011-01-25T18:44:36Z',
          updated_at: '2026-01-01T00:00:00Z',
        });
      }

      json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    } catch (err) {
      json(res, 500, { message: String(err) });
    }
  });

  const url = await listenLocal(server);
  return {
    url,
    clientId,
    clientSecret,
    env: {
      GITHUB_CLIENT_ID: clientId,
      GITHUB_CLIENT_SECRET: clientSecret,
      GITHUB_AUTHORIZE_URL: `${url}/login/oauth/authorize`,
      GITHUB_TOKEN_URL: `${url}/login/oauth/access_token`,
      GITHUB_API_URL: url,
    },
    signInAs(next) {
      user = next;
    },
    denyNext() {
      deny = true;
    },
    misbehaveNext(endpoint, how) {
      misbehaving.set(endpoint, how);
    },
    floods,
    requests,
    close: () => {
      for (const res of stalled) res.destroy();
      return closeServer(server);
    },
  };
}
