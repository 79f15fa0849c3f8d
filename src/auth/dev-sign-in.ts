// The dev sign-in (docs/architecture.md §4): only when no GitHub OAuth client is configured, NODE_ENV
// is not production and the server listens on loopback (devSignInEnabled), and then only for
// requests made on this machine that no proxy forwarded (the server also refuses to start with it
// beside a PUBLIC_URL beyond loopback: src/startup-checks.ts). Anyone who can reach it can become
// any user, which is the point on a laptop and why it exists nowhere else, unless the setting whose
// name says it is unsafe (DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE) turns these checks off.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { isLoopbackHost } from '../config.ts';
import { getUser, insertUser, listUsers } from '../../db/repositories/users.ts';
import { newId } from '../ids.ts';
import { forbidden, notFound, validationFailed } from '../errors.ts';
import { escapeHtml, sendPage } from './html.ts';
import { assertSameOrigin, startSession } from './session-cookie.ts';

export const DEV_SIGN_IN_PATH = '/auth/dev';

interface DevSignInBody {
  display_name?: string;
  user_id?: string;
}

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    display_name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
    user_id: { type: 'string', format: 'uuid' },
  },
};

async function signInPage(ctx: Context, reply: FastifyReply) {
  const users = await listUsers(ctx.db, { limit: 20 });
  const existing = users
    .map(
      (u) => `
    <li><form class="inline" method="post" action="${DEV_SIGN_IN_PATH}">
      <input type="hidden" name="user_id" value="${escapeHtml(u.id)}">
      <button type="submit">${escapeHtml(u.displayName)}</button>
      <span class="muted"><code>${escapeHtml(u.id)}</code></span>
    </form></li>`,
    )
    .join('');
  return sendPage(
    reply,
    'Dev sign-in · gigmarket',
    () => `
<h1>Dev sign-in</h1>
<p class="muted">Local use only: this page exists because no GitHub OAuth client is configured and
NODE_ENV is not production.</p>
<h2>A new user</h2>
<form method="post" action="${DEV_SIGN_IN_PATH}">
  <label>Display name <input name="display_name" required maxlength="100"></label>
  <button type="submit">Create and sign in</button>
</form>
<h2>An existing user</h2>
${existing ? `<ul>${existing}</ul>` : '<p class="muted">No users yet (the CLI makes them too: <code>npm run -s cli -- create-user "Ada"</code>).</p>'}
<p><a href="/">Back</a></p>`,
  );
}

const LOOPBACK_ADDRESS = /^(127\.|::1$|::ffff:127\.)/;

/** Headers a proxy or CDN adds to name the client or the hop: any of them means the request was forwarded. */
const PROXY_HEADER =
  /^(?:forwarded|forwarded-for|via|x-forwarded-.+|x-original-forwarded-for|x-real-ip|x-client-ip|client-ip|true-client-ip|cf-connecting-ip|fastly-client-ip|x-cluster-client-ip|x-proxyuser-ip)$/;

/** The host name of a Host header (`localhost:3000`, `[::1]:3000`), without port or brackets. */
function hostName(host: string): string {
  return host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
}

/**
 * Why the request may not use the dev sign-in, or undefined when it was made on this machine and
 * no proxy forwarded it. A proxy on this machine has a loopback peer too, so its traces are looked
 * for: the headers proxies add, a Host naming the public name, and HTTP/1.0, which nginx's plain
 * `proxy_pass` speaks upstream (with a loopback Host and no forwarding header at all). A proxy that
 * hides all three (or a plain TCP forwarder) cannot be told apart: hence the start-up warning and
 * the refusal of a PUBLIC_URL beyond this machine (src/startup-checks.ts).
 */
function forwardedBecause(request: FastifyRequest): string | undefined {
  if (!LOOPBACK_ADDRESS.test(request.socket.remoteAddress ?? '')) return 'the connection comes from another machine';
  if (request.raw.httpVersion === '1.0') return 'the request is HTTP/1.0, as a reverse proxy such as nginx forwards by default';
  for (const name in request.headers) if (PROXY_HEADER.test(name)) return `the request carries ${name}, which proxies add`;
  const host = request.headers.host;
  if (!host || !isLoopbackHost(hostName(host))) return 'the Host header does not name this machine';
  return undefined;
}

export async function registerDevSignIn(parent: FastifyInstance, ctx: Context): Promise<void> {
  await parent.register(async (app) => routes(app, ctx));
}

async function routes(app: FastifyInstance, ctx: Context): Promise<void> {
  if (!ctx.config.devSignInUnsafeAllowRemote) {
    app.addHook('onRequest', async (request) => {
      const because = forwardedBecause(request);
      if (because) throw forbidden(`the dev sign-in answers only requests made on this machine, not through a proxy: ${because}`);
    });
  }
  app.get(DEV_SIGN_IN_PATH, async (_request, reply) => signInPage(ctx, reply));

  app.post(DEV_SIGN_IN_PATH, { schema: { body: bodySchema } }, async (request: FastifyRequest<{ Body: DevSignInBody }>, reply) => {
    assertSameOrigin(request, ctx.config.publicUrl);
    const { display_name: displayName, user_id: userId } = request.body ?? {};
    if ((displayName === undefined) === (userId === undefined)) {
      throw validationFailed('body.display_name', 'give either display_name (a new user) or user_id (an existing user)');
    }
    let id: string;
    if (userId !== undefined) {
      const user = await getUser(ctx.db, userId);
      // A deleted account is gone for good: nobody signs into it again.
      if (!user || user.deletedAt) throw notFound('user');
      id = user.id;
    } else {
      id = (await insertUser(ctx.db, { id: newId(), displayName: displayName!.trim() })).id;
    }
    await startSession(ctx, reply, id);
    return reply.redirect('/', 303);
  });
}
