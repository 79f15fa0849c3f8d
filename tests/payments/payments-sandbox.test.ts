// The sandbox provider: stateless and deterministic (so instances agree), and nothing in it can be
// forged without the secret: onboarding links, client secrets and webhooks are all HMAC-signed.
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { v7 as uuid } from 'uuid';
import { ApiError } from '../../src/errors.ts';
import { PaymentProviderError, WebhookSignatureError } from '../../src/payments/provider.ts';
import { createSandboxProvider } from '../../src/payments/sandbox.ts';

const SECRET = 'sandbox-test-secret-0123456789abcdef';
const PUBLIC_URL = 'http://localhost:3000';
const sandbox = (secret = SECRET) => createSandboxProvider({ publicUrl: `${PUBLIC_URL}/`, secret });

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}
async function rejected(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

describe('accounts and onboarding', () => {
  it('derives one account id per user, the same on every instance that shares the secret', async () => {
    const userId = uuid();
    const a = await sandbox().createConnectedAccount({ userId });
    expect(a.accountId).toMatch(/^acct_sandbox_[0-9a-f]{24}$/);
    expect(await sandbox().createConnectedAccount({ userId, email: 'x@example.com' })).toEqual(a);
    expect((await sandbox().createConnectedAccount({ userId: uuid() })).accountId).not.toBe(a.accountId);
    expect((await sandbox('another-secret-0123456789abcdef').createConnectedAccount({ userId })).accountId).not.toBe(a.accountId);
  });

  it('links to the local connect page with a token only that link carries', async () => {
    const p = sandbox();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const returnUrl = `${PUBLIC_URL}/contracts/c-1`;
    const { url } = await p.createOnboardingLink({ accountId, refreshUrl: `${PUBLIC_URL}/refresh`, returnUrl });
    const parsed = new URL(url);
    expect(`${parsed.origin}${parsed.pathname}`).toBe(`${PUBLIC_URL}/sandbox/connect/${accountId}`);
    expect(parsed.searchParams.get('return_url')).toBe(returnUrl);
    const token = parsed.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect((await sandbox().createOnboardingLink({ accountId, refreshUrl: 'x', returnUrl })).url).toBe(url);

    expect(p.verifyOnboardingToken({ accountId, returnUrl, token })).toBe(true);
    expect(p.verifyOnboardingToken({ accountId, returnUrl: 'http://evil.example/', token })).toBe(false);
    const other = (await p.createConnectedAccount({ userId: uuid() })).accountId;
    expect(p.verifyOnboardingToken({ accountId: other, returnUrl, token })).toBe(false);
    expect(p.verifyOnboardingToken({ accountId, returnUrl, token: token.replace(/^./, (c) => (c === '0' ? '1' : '0')) })).toBe(false);
    expect(p.verifyOnboardingToken({ accountId, returnUrl, token: 'short' })).toBe(false);
    expect(sandbox('another-secret-0123456789abcdef').verifyOnboardingToken({ accountId, returnUrl, token })).toBe(false);
  });

  it('completes onboarding as the same account.updated event a webhook would bring, once per account', async () => {
    const p = sandbox();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const returnUrl = `${PUBLIC_URL}/done`;
    const token = new URL((await p.createOnboardingLink({ accountId, refreshUrl: 'x', returnUrl })).url).searchParams.get('token')!;
    const event = p.completeOnboarding({ accountId, returnUrl, token });
    expect(event).toEqual({
      eventId: expect.stringMatching(/^evt_sandbox_[0-9a-f]{24}$/),
      type: 'account.updated',
      accountId,
      verified: true,
    });
    expect(sandbox().completeOnboarding({ accountId, returnUrl, token }).eventId).toBe(event.eventId); // a second click is a duplicate

    const error = thrown(() => p.completeOnboarding({ accountId, returnUrl, token: 'f'.repeat(32) }));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
  });

  it('cannot know verification itself: getAccount says not verified, unknown ids are provider errors', async () => {
    const p = sandbox();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    expect(await p.getAccount(accountId)).toEqual({ accountId, verified: false });
    const error = await rejected(p.getAccount('acct_1234'));
    expect(error).toBeInstanceOf(PaymentProviderError);
    expect((error as PaymentProviderError).status).toBe(502);
    expect(await rejected(p.createOnboardingLink({ accountId: 'acct_1234', refreshUrl: 'x', returnUrl: 'y' }))).toBeInstanceOf(
      PaymentProviderError,
    );
  });
});

describe('payments and payouts', () => {
  const input = (milestoneId: string) => ({ milestoneId, amountCents: 2_500, currency: 'USD', metadata: {} });

  it('derives the payment id from the milestone and a client secret only the secret can make', async () => {
    const milestoneId = uuid();
    const payment = await sandbox().createPayment(input(milestoneId));
    expect(payment.paymentId).toBe(`pi_sandbox_${milestoneId.replace(/-/g, '')}`);
    expect(payment.clientSecret).toMatch(new RegExp(`^${payment.paymentId}_secret_[0-9a-f]{32}$`));
    expect(payment.status).toBe('requires_payment_method');
    expect(await sandbox().createPayment(input(milestoneId))).toEqual(payment);
    expect(await sandbox().getPayment(payment.paymentId)).toEqual(payment);
    expect((await sandbox('another-secret-0123456789abcdef').createPayment(input(milestoneId))).clientSecret).not.toBe(
      payment.clientSecret,
    );
    expect(sandbox().milestoneIdOf(payment.paymentId)).toBe(milestoneId);
    expect(sandbox().milestoneIdOf('pi_3MtwBwLkdIwHu7ix28a3tqPa')).toBeNull();
    expect(sandbox().paymentPageUrl(payment.paymentId)).toBe(`${PUBLIC_URL}/sandbox/pay/${payment.paymentId}`);
  });

  it('refuses a zero amount, a non-UUID milestone and an unknown payment id', async () => {
    await expect(sandbox().createPayment({ ...input(uuid()), amountCents: 0 })).rejects.toThrow(/positive integer/);
    await expect(sandbox().createPayment(input('milestone-1'))).rejects.toThrow(/UUID/);
    expect(await rejected(sandbox().getPayment('pi_sandbox_nothex'))).toBeInstanceOf(PaymentProviderError);
  });

  it('confirms a payment only with its client secret, as payment.succeeded or payment.failed', async () => {
    const p = sandbox();
    const milestoneId = uuid();
    const { paymentId, clientSecret } = await p.createPayment(input(milestoneId));
    const succeeded = p.confirmPayment({ paymentId, clientSecret, amountCents: 2_500, currency: 'USD' });
    expect(succeeded).toEqual({
      eventId: expect.stringMatching(/^evt_sandbox_/),
      type: 'payment.succeeded',
      paymentId,
      milestoneId,
      amountCents: 2_500,
      currency: 'usd',
    });
    const failed = p.confirmPayment({ paymentId, clientSecret, amountCents: 2_500, currency: 'usd', outcome: 'failed' });
    expect(failed).toMatchObject({ type: 'payment.failed', paymentId, milestoneId, reason: expect.any(String) });
    expect(failed.eventId).not.toBe(succeeded.eventId);

    const other = await p.createPayment(input(uuid()));
    for (const wrong of [other.clientSecret, `${paymentId}_secret_${'0'.repeat(32)}`, '']) {
      const error = thrown(() => p.confirmPayment({ paymentId, clientSecret: wrong, amountCents: 2_500, currency: 'usd' }));
      expect((error as ApiError).status).toBe(403);
    }
  });

  it('derives the transfer id from the milestone and pays only sandbox accounts', async () => {
    const p = sandbox();
    const { accountId } = await p.createConnectedAccount({ userId: uuid() });
    const milestoneId = uuid();
    const transfer = await p.createTransfer({ milestoneId, amountCents: 2_500, currency: 'usd', destinationAccountId: accountId });
    expect(transfer.transferId).toBe(`tr_sandbox_${milestoneId.replace(/-/g, '')}`);
    expect(await sandbox().createTransfer({ milestoneId, amountCents: 2_500, currency: 'usd', destinationAccountId: accountId })).toEqual(
      transfer,
    );
    expect(p.milestoneIdOf(transfer.transferId)).toBe(milestoneId);
    expect(
      await rejected(p.createTransfer({ milestoneId, amountCents: 1, currency: 'usd', destinationAccountId: 'acct_real' })),
    ).toBeInstanceOf(PaymentProviderError);
  });

  it("derives the refund id from the milestone and refunds only that milestone's sandbox payment", async () => {
    const p = sandbox();
    const milestoneId = uuid();
    const { paymentId } = await p.createPayment({ milestoneId, amountCents: 3_000, currency: 'usd', metadata: {} });
    const refund = await p.refund({ milestoneId, paymentId, amountCents: 1_000, currency: 'usd' });
    expect(refund.refundId).toBe(`re_sandbox_${milestoneId.replace(/-/g, '')}`);
    expect(await sandbox().refund({ milestoneId, paymentId, amountCents: 1_000, currency: 'usd' })).toEqual(refund);
    expect(await rejected(p.refund({ milestoneId: uuid(), paymentId, amountCents: 1_000, currency: 'usd' }))).toBeInstanceOf(
      PaymentProviderError,
    );
  });
});

describe('webhooks', () => {
  const event = (milestoneId: string) =>
    JSON.stringify({
      id: 'evt_sandbox_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: `pi_sandbox_${milestoneId.replace(/-/g, '')}`,
          object: 'payment_intent',
          amount: 2_500,
          amount_received: 2_500,
          currency: 'usd',
          metadata: { milestone_id: milestoneId },
        },
      },
    });
  const signatureError = (fn: () => unknown) => {
    const error = thrown(fn);
    expect(error).toBeInstanceOf(WebhookSignatureError);
    expect((error as WebhookSignatureError).status).toBe(400);
    return error as WebhookSignatureError;
  };

  it('accepts a body signed with its own secret, from any instance sharing it', () => {
    const milestoneId = uuid();
    const body = event(milestoneId);
    const signature = sandbox().signWebhook(body);
    expect(sandbox().parseWebhook(Buffer.from(body), signature)).toEqual({
      eventId: 'evt_sandbox_1',
      type: 'payment.succeeded',
      paymentId: `pi_sandbox_${milestoneId.replace(/-/g, '')}`,
      milestoneId,
      amountCents: 2_500,
      currency: 'usd',
    });
  });

  it('rejects a forged, tampered, missing or stale signature', () => {
    const body = event(uuid());
    const p = sandbox();
    signatureError(() => p.parseWebhook(body, sandbox('another-secret-0123456789abcdef').signWebhook(body)));
    signatureError(() => p.parseWebhook(body, Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_guess' })));
    signatureError(() => p.parseWebhook(body.replace('2500', '1'), p.signWebhook(body)));
    expect(signatureError(() => p.parseWebhook(body, undefined)).message).toMatch(/missing/);
    expect(signatureError(() => p.parseWebhook(body, p.signWebhook(body, Math.floor(Date.now() / 1000) - 600))).message).toMatch(/too old/);
  });
});

describe('setup', () => {
  it('needs a real secret', () => {
    expect(() => createSandboxProvider({ publicUrl: PUBLIC_URL, secret: 'short' })).toThrow(/at least 16/);
  });
});
