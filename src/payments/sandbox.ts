// The sandbox provider, the default (docs/architecture.md §7): the whole lifecycle runs on a laptop with no
// Stripe account. It keeps no state, so any number of server instances agree: every id, link token
// and client secret is derived from our own ids with an HMAC under the secret passed in.
//
// How verification and payment reach the lifecycle: the sandbox cannot know them on its own
// (getAccount always answers verified: false). Instead, the sandbox pages the lifecycle serves call
// completeOnboarding (the connect_url page) and confirmPayment (the pay page); each checks the
// link token or client secret and returns the same ProviderEvent a Stripe webhook would produce.
// The lifecycle applies it through its one webhook-event path and stores the outcome, exactly as
// for Stripe. parseWebhook also works, with Stripe-shaped events signed by signWebhook.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { PaymentProviderError, type CreatePaymentInput, type Payment, type PaymentProvider, type ProviderEvent } from './provider.ts';
import { mapStripeEvent, verifyStripeSignature, WEBHOOK_TOLERANCE_SECONDS } from './stripe.ts';
import { stripeSdk } from './stripe-sdk.ts';

export const SANDBOX_PREFIX = {
  account: 'acct_sandbox_',
  payment: 'pi_sandbox_',
  transfer: 'tr_sandbox_',
  refund: 're_sandbox_',
  event: 'evt_sandbox_',
} as const;

const UUID_HEX = /^[0-9a-f]{32}$/;

export interface SandboxPaymentProvider extends PaymentProvider {
  readonly name: 'sandbox';
  /** Whether the token in a connect_url belongs to this account and return URL. */
  verifyOnboardingToken(input: { accountId: string; returnUrl: string; token: string }): boolean;
  /**
   * What the connect_url page calls when the worker clicks "complete": a verified account.updated
   * event (the same event id each time, so a second click is a duplicate). 403 for a bad token.
   */
  completeOnboarding(input: { accountId: string; returnUrl: string; token: string }): ProviderEvent;
  /** Where the paying client confirms a sandbox payment (the page the lifecycle serves). */
  paymentPageUrl(paymentId: string): string;
  /** Whether this is the client secret of this payment (what the pay page needs to show anything). */
  verifyClientSecret(paymentId: string, clientSecret: string): boolean;
  /**
   * What the pay page calls: checks the client secret, then returns payment.succeeded (or
   * payment.failed, to try that path) for the milestone. The sandbox charges what the page shows,
   * so amount and currency come from the caller's milestone. 403 for a wrong client secret.
   */
  confirmPayment(input: {
    paymentId: string;
    clientSecret: string;
    amountCents: number;
    currency: string;
    outcome?: 'succeeded' | 'failed';
  }): ProviderEvent;
  /** The milestone a sandbox payment or transfer id was made for; null if it is not one of ours. */
  milestoneIdOf(paymentOrTransferId: string): string | null;
  /** A Stripe-Signature header for a sandbox webhook body (for tests and local scripts). */
  signWebhook(payload: string, timestamp?: number): string;
}

export interface SandboxOptions {
  /** The server's public base URL; connect_url and pay pages live under it. */
  publicUrl: string;
  /** Any server-wide secret (e.g. the session secret): purpose-specific keys are derived from it. */
  secret: string;
  webhookToleranceSeconds?: number;
}

export function createSandboxProvider(options: SandboxOptions): SandboxPaymentProvider {
  if (options.secret.length < 16) throw new Error('the sandbox payment provider needs a secret of at least 16 characters');
  const publicUrl = options.publicUrl.replace(/\/$/, '');
  const tolerance = options.webhookToleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;

  // One key per purpose, so a token for one thing can never stand in for another.
  const keyFor = (purpose: string) => createHmac('sha256', options.secret).update(`gigmarket-sandbox-payments:${purpose}`).digest();
  const keys = {
    account: keyFor('account'),
    onboard: keyFor('onboard'),
    clientSecret: keyFor('client-secret'),
    event: keyFor('event'),
    webhook: keyFor('webhook'),
  };
  const mac = (key: Buffer, data: string, length = 32) => createHmac('sha256', key).update(data).digest('hex').slice(0, length);
  const webhookSecret = `whsec_sandbox_${mac(keys.webhook, 'webhook-secret', 48)}`;
  const eventId = (what: string) => SANDBOX_PREFIX.event + mac(keys.event, what, 24);

  const sameSecret = (a: string, b: string) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };

  /** Milestone ids are UUIDs; their hex is the reversible tail of payment and transfer ids. */
  function milestoneHex(milestoneId: string): string {
    const hex = milestoneId.replace(/-/g, '').toLowerCase();
    if (!UUID_HEX.test(hex)) throw new Error(`sandbox payments need UUID milestone ids, got "${milestoneId}"`);
    return hex;
  }
  function milestoneIdOf(id: string): string | null {
    const prefix = [SANDBOX_PREFIX.payment, SANDBOX_PREFIX.transfer].find((p) => id.startsWith(p));
    const hex = prefix ? id.slice(prefix.length) : '';
    if (!UUID_HEX.test(hex)) return null;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  const onboardingToken = (accountId: string, returnUrl: string) => mac(keys.onboard, `${accountId}\n${returnUrl}`);
  const clientSecretOf = (paymentId: string) => `${paymentId}_secret_${mac(keys.clientSecret, paymentId)}`;
  const missing = (operation: string) =>
    new PaymentProviderError({ provider: 'sandbox', operation, failure: 'rejected', providerCode: 'resource_missing' });
  const isAccountId = (id: string) => new RegExp(`^${SANDBOX_PREFIX.account}[0-9a-f]{24}$`).test(id);

  function paymentOf(paymentId: string, operation: string): Payment {
    if (!milestoneIdOf(paymentId) || !paymentId.startsWith(SANDBOX_PREFIX.payment)) throw missing(operation);
    // The sandbox keeps no state: the lifecycle's milestone status is the truth about payment.
    return { paymentId, clientSecret: clientSecretOf(paymentId), status: 'requires_payment_method' };
  }

  function verifyOnboardingToken({ accountId, returnUrl, token }: { accountId: string; returnUrl: string; token: string }) {
    return isAccountId(accountId) && sameSecret(token, onboardingToken(accountId, returnUrl));
  }

  return {
    name: 'sandbox',

    async createConnectedAccount({ userId }) {
      return { accountId: SANDBOX_PREFIX.account + mac(keys.account, userId, 24) };
    },

    async createOnboardingLink({ accountId, returnUrl }) {
      if (!isAccountId(accountId)) throw missing('create the onboarding link');
      const query = new URLSearchParams({ token: onboardingToken(accountId, returnUrl), return_url: returnUrl });
      return { url: `${publicUrl}/sandbox/connect/${accountId}?${query}` };
    },

    async getAccount(accountId) {
      if (!isAccountId(accountId)) throw missing('read the connected account');
      return { accountId, verified: false };
    },

    async createPayment({ milestoneId, amountCents }: CreatePaymentInput) {
      if (!Number.isInteger(amountCents) || amountCents <= 0) {
        throw new Error(`createPayment needs a positive integer amount, got ${amountCents}`);
      }
      return paymentOf(SANDBOX_PREFIX.payment + milestoneHex(milestoneId), 'create the payment');
    },

    async getPayment(paymentId) {
      return paymentOf(paymentId, 'read the payment');
    },

    async createTransfer({ milestoneId, destinationAccountId }) {
      if (!isAccountId(destinationAccountId)) throw missing('create the payout');
      return { transferId: SANDBOX_PREFIX.transfer + milestoneHex(milestoneId) };
    },

    async refund({ milestoneId, paymentId, amountCents }) {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(`refund needs a positive integer amount, got ${amountCents}`);
      if (milestoneIdOf(paymentId) !== milestoneId || !paymentId.startsWith(SANDBOX_PREFIX.payment)) throw missing('refund the payment');
      return { refundId: SANDBOX_PREFIX.refund + milestoneHex(milestoneId) };
    },

    parseWebhook(rawBody, signatureHeader) {
      return mapStripeEvent(verifyStripeSignature(rawBody, signatureHeader, [webhookSecret], tolerance));
    },

    verifyOnboardingToken,

    completeOnboarding(input) {
      if (!verifyOnboardingToken(input)) throw new ApiError('FORBIDDEN', 'this onboarding link is not valid');
      return {
        eventId: eventId(`account.updated ${input.accountId}`),
        type: 'account.updated',
        accountId: input.accountId,
        verified: true,
      };
    },

    paymentPageUrl(paymentId) {
      return `${publicUrl}/sandbox/pay/${paymentId}`;
    },

    verifyClientSecret(paymentId, clientSecret) {
      return paymentId.startsWith(SANDBOX_PREFIX.payment) && sameSecret(clientSecret, clientSecretOf(paymentId));
    },

    confirmPayment({ paymentId, clientSecret, amountCents, currency, outcome = 'succeeded' }) {
      const milestoneId = paymentId.startsWith(SANDBOX_PREFIX.payment) ? milestoneIdOf(paymentId) : null;
      if (!milestoneId || !sameSecret(clientSecret, clientSecretOf(paymentId))) {
        throw new ApiError('FORBIDDEN', 'this client secret does not belong to this payment');
      }
      if (outcome === 'failed') {
        // Every decline is an attempt of its own (unlike success, which can happen once).
        return {
          eventId: eventId(`payment.failed ${paymentId} ${randomUUID()}`),
          type: 'payment.failed',
          paymentId,
          milestoneId,
          reason: 'declined in the sandbox',
        };
      }
      return {
        eventId: eventId(`payment.succeeded ${paymentId}`),
        type: 'payment.succeeded',
        paymentId,
        milestoneId,
        amountCents,
        currency: currency.toLowerCase(),
      };
    },

    milestoneIdOf,

    signWebhook(payload, timestamp = Math.floor(Date.now() / 1000)) {
      return stripeSdk().webhooks.generateTestHeaderString({ payload, secret: webhookSecret, timestamp });
    },
  };
}
