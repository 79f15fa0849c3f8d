// Authentication runs in onRequest, before validation, so that missing credentials are always a
// 401 (never a 400 for a bad body). The route's security requirement comes from the spec.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { touchApiKey } from '../../db/repositories/api-keys.ts';
import { findLiveSession } from '../../db/repositories/sessions.ts';
import { ApiError, forbidden, unauthenticated } from '../errors.ts';
import type { ApiKeyCache } from './key-cache.ts';
import { looksLikeApiKey, sha256 } from './secrets.ts';
import type { Actor } from '../actor.ts';
import type { OAuthScope } from '../oauth/scopes.ts';
import type { TokenHolder } from '../oauth/tokens.ts';
import { isMcpCall } from './internal-call.ts';

/**
 * The session cookie's name. In production it is `__Host-gm_session`: browsers keep such a cookie
 * only if it is Secure, for this host alone and path /, so a sibling subdomain cannot plant or
 * overwrite it.
 */
export function sessionCookieName(nodeEnv: string): string {
  return nodeEnv === 'production' ? '__Host-gm_session' : 'gm_session';
}

export type Principal =
  | {
      kind: 'api_key';
      userId: string;
      apiKeyId: string;
      hostedAgentId: string | null;
      /** An OAuth access token's granted scopes (it acts as its grant's key); absent for an API key, which may do everything. */
      scopes?: readonly OAuthScope[];
    }
  | { kind: 'session'; userId: string; sessionId: string };

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    operationId?: string;
    /** Security requirements of the operation, from the spec: scheme names per alternative. */
    security?: Record<string, string[]>[];
    /** The route is an OAuth protected resource (/mcp): it takes access tokens, and its 401 says where to get one. */
    oauthResource?: boolean;
  }
}

const LAST_USED_RESOLUTION_MS = 60_000;
const KEY_SCHEMES = new Set(['bearerApiKey', 'headerApiKey']);
const SESSION_SCHEME = 'sessionCookie';

const TWO_KEYS =
  'two different API keys (in x-api-key and Authorization, or in two Authorization headers): send one key, in either header; the same key in both is accepted';

/** The Authorization header's bearer token; a second, different Authorization line (Node keeps only the first in `headers`) is refused. */
function bearerKey(request: FastifyRequest, authorization: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const raw = request.raw.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && raw[i + 1] !== authorization && name.toLowerCase() === 'authorization') throw unauthenticated(TWO_KEYS);
  }
  return match ? match[1]! : null;
}

/**
 * The API key the request presents, if any; `null` means a header was there but malformed. Two
 * different keys (x-api-key beside Authorization, or two Authorization lines) are refused rather
 * than one silently chosen. A session cookie beside a key is ignored: the browser adds it on its
 * own, the key was sent on purpose.
 */
export function presentedKey(request: FastifyRequest): string | undefined | null {
  const header = request.headers['x-api-key'];
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? undefined : bearerKey(request, authorization);
  if (typeof header !== 'string') return bearer;
  const key = header.trim();
  if (authorization !== undefined && bearer !== key) throw unauthenticated(TWO_KEYS);
  return key;
}

/**
 * Whether the request presents an API key this process knows to be active (src/auth/key-cache.ts),
 * answered from memory: the rate limits let such a request past a spent address (src/http/rate-limit.ts).
 */
export function presentsKnownKey(keys: ApiKeyCache, request: FastifyRequest): boolean {
  try {
    const key = presentedKey(request);
    return typeof key === 'string' && looksLikeApiKey(key) && keys.knowsActive(sha256(key));
  } catch {
    return false; // two keys: refused by authentication itself
  }
}

/** Last use is advisory, to the minute: never let it fail or slow the request, nor write on each one. */
function noteUse(db: Db, keys: ApiKeyCache, key: { id: string; lastUsedAt: Date | null }): void {
  if (key.lastUsedAt && Date.now() - key.lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return;
  const now = new Date();
  keys.touched(key.id, now);
  touchApiKey(db, key.id, now).catch(() => {});
}

async function principalFromKey(db: Db, keys: ApiKeyCache, key: string): Promise<Principal> {
  if (!looksLikeApiKey(key)) throw unauthenticated('the API key is malformed');
  const row = await keys.findActive(db, sha256(key));
  if (!row) throw unauthenticated('the API key is unknown or revoked');
  noteUse(db, keys, row);
  return { kind: 'api_key', userId: row.userId, apiKeyId: row.id, hostedAgentId: row.hostedAgentId };
}

async function principalFromSession(db: Db, request: FastifyRequest, cookieName: string): Promise<Principal | undefined> {
  const raw = request.cookies[cookieName];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) throw unauthenticated('the session cookie is invalid');
  const session = await findLiveSession(db, sha256(unsigned.value));
  if (!session) throw unauthenticated('the session has expired or was signed out');
  return { kind: 'session', userId: session.userId, sessionId: session.id };
}

/**
 * Cookies ride along on cross-site requests; an unsafe method authenticated by cookie must come
 * from our own origin (Sec-Fetch-Site, else Origin). Non-browser clients send neither.
 */
export function checkSameOrigin(request: FastifyRequest, publicUrl: string): void {
  if (['GET', 'HEAD', 'OPTIONS'].includes(request.method)) return;
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') {
    if (site === 'same-origin' || site === 'none') return;
    throw forbidden('cross-site request refused for a cookie-authenticated call');
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(publicUrl).origin) {
    throw forbidden(`cross-origin request from ${origin} refused for a cookie-authenticated call`);
  }
}

type Security = Record<string, string[]>[];

interface Accepts {
  key: boolean;
  session: boolean;
  /** `{}` among the alternatives: credentials are optional. */
  anonymous: boolean;
}

/** What a route's security requirement accepts, worked out once per route rather than per request. */
const acceptsOfRoute = new WeakMap<Security, Accepts>();
function acceptsOf(security: Security): Accepts {
  let accepts = acceptsOfRoute.get(security);
  if (!accepts) {
    const schemes = security.flatMap((s) => Object.keys(s));
    accepts = {
      key: schemes.some((s) => KEY_SCHEMES.has(s)),
      session: schemes.includes(SESSION_SCHEME),
      anonymous: security.some((s) => Object.keys(s).length === 0),
    };
    acceptsOfRoute.set(security, accepts);
  }
  return accepts;
}

/** OAuth access tokens, where the server takes them: /mcp, and the API calls its tools make. */
export interface AcceptedTokens {
  holder(token: string): Promise<TokenHolder | undefined>;
  /** The scope an operation needs of a token; undefined: no token may call it. */
  scopeOf(operationId: string): OAuthScope | undefined;
  /** The WWW-Authenticate challenge of /mcp's 401 (RFC 9728: where its resource metadata is). */
  challenge: string;
}

async function principalFromToken(db: Db, keys: ApiKeyCache, tokens: AcceptedTokens, token: string): Promise<Principal> {
  const holder = await tokens.holder(token);
  if (!holder) throw unauthenticated("the access token is unknown, expired or revoked, or was not issued for this server's /mcp");
  noteUse(db, keys, { id: holder.apiKeyId, lastUsedAt: holder.lastUsedAt });
  return { kind: 'api_key', userId: holder.userId, apiKeyId: holder.apiKeyId, hostedAgentId: null, scopes: holder.scopes };
}

/** A token acts only within its scopes: the operation's scope must be among them. */
function checkScope(tokens: AcceptedTokens, request: FastifyRequest, scopes: readonly OAuthScope[]): void {
  const operationId = request.routeOptions.config.operationId;
  if (!operationId || request.routeOptions.config.oauthResource) return; // /mcp itself: each tool's call is checked
  const needed = tokens.scopeOf(operationId);
  if (!needed) throw forbidden(`${operationId} is not open to OAuth clients: it needs an API key or the owner's session`);
  if (!scopes.includes(needed)) throw forbidden(`${operationId} needs the "${needed}" scope, which this grant does not include`);
}

export function authenticateHook(
  db: Db,
  keys: ApiKeyCache,
  options: { publicUrl: string; sessionCookie: string; tokens?: AcceptedTokens },
) {
  const { publicUrl, sessionCookie, tokens } = options;
  async function principalOfRequest(request: FastifyRequest): Promise<Principal | undefined> {
    const key = presentedKey(request);
    if (key === null) throw unauthenticated('the Authorization header must be "Bearer <API key>"');
    if (key === undefined) return principalFromSession(db, request, sessionCookie);
    if (tokens && !looksLikeApiKey(key) && (request.routeOptions.config.oauthResource || isMcpCall(request))) {
      return principalFromToken(db, keys, tokens, key);
    }
    return principalFromKey(db, keys, key);
  }
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    request.principal = null;
    const security = request.routeOptions.config.security;
    if (!security || security.length === 0) return; // public route
    const accepts = acceptsOf(security);
    let principal: Principal | undefined;
    try {
      principal = await principalOfRequest(request);
      if (!principal && !accepts.anonymous) {
        throw unauthenticated('credentials are required: an API key (Authorization: Bearer or x-api-key) or a browser session');
      }
    } catch (err) {
      // An MCP client without credentials learns from the challenge where to get a token.
      if (tokens && request.routeOptions.config.oauthResource && err instanceof ApiError && err.code === 'UNAUTHENTICATED') {
        reply.header('www-authenticate', tokens.challenge);
      }
      throw err;
    }
    // `{}` among the alternatives: credentials are optional (the operation answers anonymous
    // callers as it answers anyone it shows nothing: GET /api/profile/{userId}/resume).
    if (!principal) return;
    const allowed = principal.kind === 'session' ? accepts.session : accepts.key;
    if (!allowed) {
      throw principal.kind === 'api_key'
        ? forbidden('this operation needs a browser session; an API key cannot do it')
        : forbidden('this operation needs an API key');
    }
    if (principal.kind === 'session') checkSameOrigin(request, publicUrl);
    if (principal.kind === 'api_key' && principal.scopes && tokens) checkScope(tokens, request, principal.scopes);
    request.principal = principal;
  };
}

/** The caller of an authenticated operation (the hook guarantees it is set where credentials are required). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('INTERNAL', 'operation reached without a principal');
  return request.principal;
}

/**
 * Who acts in an authenticated operation, handed to the services (src/actor.ts): the user, with the
 * API key and its hosted agent when the request came with a key; a browser session acts without one.
 */
export function actorOf(request: FastifyRequest): Actor {
  const p = principalOf(request);
  return p.kind === 'api_key'
    ? { userId: p.userId, apiKeyId: p.apiKeyId, hostedAgentId: p.hostedAgentId }
    : { userId: p.userId, apiKeyId: null, hostedAgentId: null };
}
