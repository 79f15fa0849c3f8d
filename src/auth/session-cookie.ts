// The browser session cookie (docs/architecture.md §4): a random token, signed, HttpOnly, SameSite=Lax; Secure and
// named __Host-gm_session in production. The token's SHA-256 is the session row; the row is what
// makes sign-out work.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { Context } from '../context.ts';
import type { Config } from '../config.ts';
import { findLiveSession, insertSession } from '../../db/repositories/sessions.ts';
import { newId } from '../ids.ts';
import { newSessionToken, sha256 } from './secrets.ts';
import { sessionCookieName } from './authenticate.ts';

function cookieOptions(config: Config): CookieSerializeOptions {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: config.nodeEnv === 'production', signed: true };
}

/** Creates a session row for the user and sets its cookie. */
export async function startSession(ctx: Pick<Context, 'db' | 'config'>, reply: FastifyReply, userId: string): Promise<void> {
  const token = newSessionToken();
  const expiresAt = new Date(Date.now() + ctx.config.sessionTtlDays * 86_400_000);
  await insertSession(ctx.db, { id: newId(), tokenHash: sha256(token), userId, expiresAt });
  reply.setCookie(sessionCookieName(ctx.config.nodeEnv), token, {
    ...cookieOptions(ctx.config),
    maxAge: ctx.config.sessionTtlDays * 86_400,
  });
}

export function clearSessionCookie(config: Config, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName(config.nodeEnv), cookieOptions(config));
}

/** The session token of a correctly signed cookie, if the request carries one. */
export function sessionToken(config: Config, request: FastifyRequest): string | undefined {
  const raw = request.cookies[sessionCookieName(config.nodeEnv)];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? unsigned.value : undefined;
}

/** The live session of this request, or undefined (signed out, expired, tampered). Never throws. */
export async function currentSession(ctx: Pick<Context, 'db' | 'config'>, request: FastifyRequest) {
  const token = sessionToken(ctx.config, request);
  return token ? findLiveSession(ctx.db, sha256(token)) : undefined;
}

/** The same-origin check of cookie-authenticated API calls, for the browser routes' posts. */
export { checkSameOrigin as assertSameOrigin } from './authenticate.ts';
