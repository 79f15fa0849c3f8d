// Sign-in with GitHub (docs/architecture.md §4) through @fastify/oauth2. The authorize, token and API URLs come
// from the config, so tests run the whole flow against a local fake GitHub (tests/fakes/github.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuth2Namespace, OAuth2Token } from '@fastify/oauth2';
import type { Context } from '../context.ts';
import { upsertGithubUser } from '../../db/repositories/users.ts';
import { newId } from '../ids.ts';
import { ApiError, forbidden, unauthenticated, validationFailed } from '../errors.ts';
import { startSession } from './session-cookie.ts';
import { readCappedText } from '../capped-body.ts';

export const GITHUB_START_PATH = '/auth/github';
const CALLBACK_PATH = '/auth/github/callback';
const USER_AGENT = 'gigmarket';
/** GitHub's answers are small (a token, a profile of a few KB); past these sizes they are not read on. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
const MAX_USER_ANSWER_BYTES = 256 * 1024;

export interface GithubUser {
  id: number;
  login: string;
  name: string | null;
}

/** GET {api}/user with the access token: who signed in. */
async function fetchGithubUser(apiUrl: string, accessToken: string, timeoutMs: number): Promise<GithubUser> {
  const res = await fetch(`${apiUrl}/user`, {
    headers: {
      authorization: `Bearer ${accessToken}`,
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': USER_AGENT,
    },
    // Until the body is read too.
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`GitHub GET /user answered ${res.status}`);
  }
  const body = JSON.parse(await readCappedText(res, MAX_USER_ANSWER_BYTES)) as Record<string, unknown>;
  if (typeof body.id !== 'number' || typeof body.login !== 'string') throw new Error('GitHub GET /user returned no id and login');
  return { id: body.id, login: body.login, name: typeof body.name === 'string' && body.name.trim() ? body.name.trim() : null };
}

export async function registerGithubSignIn(app: FastifyInstance, ctx: Context): Promise<void> {
  const github = ctx.config.github;
  if (!github) return;
  const production = ctx.config.nodeEnv === 'production';
  const authorize = new URL(github.authorizeUrl);
  const token = new URL(github.tokenUrl);
  // Loaded only when GitHub sign-in is configured: a server without it never needs the plugin.
  const { default: oauth2 } = await import('@fastify/oauth2');

  await app.register(oauth2, {
    name: 'githubOAuth2',
    credentials: {
      client: { id: github.clientId, secret: github.clientSecret },
      auth: {
        authorizeHost: authorize.origin,
        authorizePath: authorize.pathname,
        tokenHost: token.origin,
        tokenPath: token.pathname,
      },
      // GitHub documents client_id and client_secret as form parameters of the token request.
      options: { authorizationMethod: 'body' },
      // Wreck's, for the token request: the time-out for the answer to start and again for its
      // body (Wreck has none by default), and the most of it that is read.
      http: { timeout: github.timeoutMs, maxBytes: MAX_TOKEN_ANSWER_BYTES },
    },
    // No scope: the public profile (id, login, name) needs none.
    startRedirectPath: GITHUB_START_PATH,
    // Read at request time: PUBLIC_URL decides where GitHub sends the browser back.
    callbackUri: () => `${ctx.config.publicUrl}${CALLBACK_PATH}`,
    cookie: { path: GITHUB_START_PATH, secure: production, signed: true },
    // __Host- state cookies cannot be planted by a sibling subdomain; they need https.
    hostPrefixedCookies: production,
    userAgent: USER_AGENT,
  });
  const client = (app as unknown as { githubOAuth2: OAuth2Namespace }).githubOAuth2;

  app.get(CALLBACK_PATH, async (request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply) => {
    const { code, error } = request.query;
    if (error) throw unauthenticated(`GitHub sign-in was not completed (${error}); start again at ${GITHUB_START_PATH}`);
    if (!code) throw validationFailed('query.code', 'is required');

    let accessToken: OAuth2Token;
    try {
      accessToken = await client.getAccessTokenFromAuthorizationCodeFlow(request, reply);
    } catch (err) {
      if ((err as Error).message === 'Invalid state') {
        throw forbidden(`the sign-in state does not match this browser; start again at ${GITHUB_START_PATH}`);
      }
      throw err; // GitHub unreachable or answering garbage: a 500, logged
    }
    // GitHub answers a bad or used code with 200 and an `error` field, not an HTTP error.
    const granted = accessToken.token as unknown as { access_token?: unknown; error?: unknown };
    if (typeof granted.access_token !== 'string') {
      throw unauthenticated(
        `GitHub refused the sign-in code (${String(granted.error ?? 'no access token')}); start again at ${GITHUB_START_PATH}`,
      );
    }

    const githubUser = await fetchGithubUser(github.apiUrl, granted.access_token, github.timeoutMs);
    const user = await upsertGithubUser(ctx.db, newId(), githubUser);
    if (!user) throw new ApiError('INTERNAL', 'could not create the user');
    await startSession(ctx, reply, user.id);
    request.log.info({ userId: user.id, githubLogin: githubUser.login }, 'signed in with GitHub');
    return reply.redirect('/', 302);
  });
}
