// Browser routes outside the JSON API (not in openapi.yaml: they are pages and redirects for
// people): GitHub sign-in, the local dev sign-in, sign-out, which sign-ins exist (for the
// dashboard's signed-out page) and the owners' dashboard at `/` (src/dashboard/).
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { devSignInEnabled } from '../config.ts';
import { revokeSessionByTokenHash } from '../../db/repositories/sessions.ts';
import { sha256 } from './secrets.ts';
import { registerGithubSignIn } from './github.ts';
import { registerDevSignIn } from './dev-sign-in.ts';
import { registerDashboard } from '../dashboard/serve.ts';
import { registerPaymentPages } from '../payments/pages.ts';
import { assertSameOrigin, clearSessionCookie, sessionToken } from './session-cookie.ts';

export async function registerBrowserRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  // Encapsulated: the form parser below serves these routes only, never the JSON API.
  await app.register(async (browser) => {
    // HTML forms post application/x-www-form-urlencoded, which Fastify does not parse by default.
    browser.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    await registerGithubSignIn(browser, ctx);
    if (devSignInEnabled(ctx.config)) await registerDevSignIn(browser, ctx);
    await registerDashboard(browser);

    // The dashboard's signed-out page offers the sign-ins this server has.
    browser.get('/auth/methods', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return { github: Boolean(ctx.config.github), dev: devSignInEnabled(ctx.config) };
    });
    await registerPaymentPages(browser, ctx);

    // Sign-out revokes the session row, so the cookie stops working on every instance.
    browser.post('/auth/logout', async (request, reply) => {
      assertSameOrigin(request, ctx.config.publicUrl);
      const token = sessionToken(ctx.config, request);
      if (token) await revokeSessionByTokenHash(ctx.db, sha256(token));
      clearSessionCookie(ctx.config, reply);
      return reply.redirect('/', 303);
    });
  });
}
