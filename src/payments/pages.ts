// Pages for people around the payment provider: where onboarding returns to, and — with the
// sandbox provider — the pages that stand in for Stripe's hosted onboarding and payment, so the
// whole lifecycle runs on a laptop. The sandbox pages produce the same ProviderEvent a Stripe
// webhook does and apply it through the same path (src/services/provider-events.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { escapeHtml, sendPage } from '../auth/html.ts';
import { findMilestoneByPayment } from '../../db/repositories/contracts.ts';
import { applyProviderEvent } from '../services/provider-events.ts';
import { ApiError, forbidden } from '../errors.ts';
import type { SandboxPaymentProvider } from './sandbox.ts';

const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

const wantsJson = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').startsWith('application/json') || (request.headers.accept ?? '').includes('application/json');

function message(reply: FastifyReply, title: string, text: string, status = 200) {
  return sendPage(reply, title, () => `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`, status);
}

/** The provider's check of a token or client secret: a refusal is a page for a browser, the JSON envelope otherwise. */
function checked<T>(request: FastifyRequest, reply: FastifyReply, title: string, check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (wantsJson(request) || !(error instanceof ApiError) || error.code !== 'FORBIDDEN') throw error;
    void message(reply, title, error.message, 403);
    return undefined;
  }
}

export async function registerPaymentPages(app: FastifyInstance, ctx: Context): Promise<void> {
  app.get('/connect/return', async (_request, reply) =>
    message(
      reply,
      'Onboarding submitted',
      'Thank you. Once the payment provider has verified your identity, the contract becomes active; you can close this tab.',
    ),
  );

  app.get('/connect/refresh', async (request, reply) => {
    const contractId = (request.query as Record<string, string | undefined>).contract_id ?? '{id}';
    return message(reply, 'This onboarding link has expired', `Ask for a new one: GET /api/contracts/${contractId}/connect-link.`);
  });

  if (ctx.payments.name !== 'sandbox') return;
  const sandbox: SandboxPaymentProvider = ctx.payments;

  app.get('/sandbox/connect/:accountId', async (request, reply) => {
    const { accountId } = request.params as { accountId: string };
    const query = request.query as Record<string, string | undefined>;
    const token = query.token ?? '';
    const returnUrl = query.return_url ?? '';
    if (!sandbox.verifyOnboardingToken({ accountId, returnUrl, token })) {
      return message(
        reply,
        'Invalid onboarding link',
        'This link is not valid. Ask for a new one with GET /api/contracts/{id}/connect-link.',
        403,
      );
    }
    return sendPage(
      reply,
      'Sandbox onboarding',
      () => `
<h1>Identity checks (sandbox)</h1>
<p>This server runs the <strong>sandbox</strong> payment provider: nothing real is checked or paid.
With Stripe, this would be Stripe's hosted onboarding for account <code>${escapeHtml(accountId)}</code>.</p>
<form method="post">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <input type="hidden" name="return_url" value="${escapeHtml(returnUrl)}">
  <button type="submit">Complete onboarding</button>
</form>`,
    );
  });

  app.post('/sandbox/connect/:accountId', async (request, reply) => {
    const { accountId } = request.params as { accountId: string };
    // The form posts its hidden fields back to the link itself; the link's own query also works,
    // so `curl -X POST "$connect_url"` completes onboarding from a terminal.
    const returnUrl = field(request.body, 'return_url') || field(request.query, 'return_url');
    const token = field(request.body, 'token') || field(request.query, 'token');
    const event = checked(request, reply, 'Invalid onboarding link', () => sandbox.completeOnboarding({ accountId, returnUrl, token }));
    if (!event) return reply;
    const outcome = await applyProviderEvent(ctx, event);
    if (wantsJson(request)) return { outcome, account_id: accountId, verified: true };
    return reply.redirect(returnUrl, 303);
  });

  // The page shows a payment's milestone and amount only to whoever has its client secret (the
  // client, from the fund response); without it, the same form for every payment id, known or not.
  app.get('/sandbox/pay/:paymentId', async (request, reply) => {
    const { paymentId } = request.params as { paymentId: string };
    const secret = field(request.query, 'client_secret');
    const form = (heading: string, status = 200) =>
      sendPage(
        reply,
        'Sandbox payment',
        () => `
<h1>${escapeHtml(heading)}</h1>
<p>Paste the <code>client_secret</code> from the fund response to see this payment and pay it. This server
runs the <strong>sandbox</strong> payment provider: nothing real is charged.</p>
<form method="get">
  <label>client_secret <input name="client_secret" size="60" required></label>
  <p><button type="submit">Show the payment</button></p>
</form>`,
        status,
      );
    if (!secret) return form('Sandbox payment');
    if (!sandbox.verifyClientSecret(paymentId, secret)) return form('Wrong client secret', 403);
    const milestone = await findMilestoneByPayment(ctx.db, paymentId);
    if (!milestone) return message(reply, 'Unknown payment', 'There is no sandbox payment with this id.', 404);
    const amount = `${(milestone.amountCents / 100).toFixed(2)} ${milestone.currency}`;
    return sendPage(
      reply,
      'Sandbox payment',
      () => `
<h1>Pay ${escapeHtml(amount)} (sandbox)</h1>
<p>Milestone <strong>${escapeHtml(milestone.title)}</strong>. This server runs the <strong>sandbox</strong>
payment provider: nothing real is charged. With Stripe, the client confirms the payment with Stripe.js.</p>
<form method="post">
  <input type="hidden" name="client_secret" value="${escapeHtml(secret)}">
  <p><button type="submit" name="outcome" value="succeeded">Pay</button>
  <button type="submit" name="outcome" value="failed">Decline</button></p>
</form>`,
    );
  });

  app.post('/sandbox/pay/:paymentId', async (request, reply) => {
    const { paymentId } = request.params as { paymentId: string };
    const clientSecret = field(request.body, 'client_secret');
    // The secret first: without it, nobody learns whether a payment exists.
    const allowed = checked(request, reply, 'Wrong client secret', () => {
      if (!sandbox.verifyClientSecret(paymentId, clientSecret)) throw forbidden('this client secret does not belong to this payment');
      return true;
    });
    if (!allowed) return reply;
    const milestone = await findMilestoneByPayment(ctx.db, paymentId);
    if (!milestone) throw new ApiError('NOT_FOUND', 'payment not found');
    const outcome = field(request.body, 'outcome') === 'failed' ? 'failed' : 'succeeded';
    const event = checked(request, reply, 'Wrong client secret', () =>
      sandbox.confirmPayment({
        paymentId,
        clientSecret,
        amountCents: milestone.amountCents,
        currency: milestone.currency,
        outcome,
      }),
    );
    if (!event) return reply;
    const applied = await applyProviderEvent(ctx, event);
    if (wantsJson(request)) return { outcome: applied, payment: outcome };
    return message(
      reply,
      outcome === 'succeeded' ? 'Payment confirmed' : 'Payment declined',
      outcome === 'succeeded'
        ? 'The milestone is funded. You can close this tab.'
        : 'The payment was declined; try again with the same link.',
    );
  });
}
