// The Stripe provider, with the real stripe-node SDK: Connect Express accounts and account links
// for worker KYC, a PaymentIntent per milestone, a transfer per payout, a refund per disputed
// milestone given back to the client, signed webhooks.
// Separate charges and transfers: the platform charges the client, then transfers to the worker.
import type Stripe from 'stripe';
import type { StripeSettings } from '../config.ts';
import {
  PaymentProviderError,
  WebhookSignatureError,
  idempotencyKeys,
  transferGroup,
  type Payment,
  type PaymentProvider,
  type PaymentStatus,
  type ProviderEvent,
  type ProviderFailure,
  type ProviderName,
} from './provider.ts';
import { stripeSdk } from './stripe-sdk.ts';

/** Stripe's own default: a signature older than five minutes is a replay. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Whether a worker's Express account can receive payouts. We request only the transfers
 * capability (we never charge on the worker's account), so charges_enabled is not the test:
 * onboarding submitted, transfers active, payouts enabled.
 */
export function accountVerified(account: Pick<Stripe.Account, 'details_submitted' | 'payouts_enabled' | 'capabilities'>): boolean {
  return account.details_submitted === true && account.payouts_enabled === true && account.capabilities?.transfers === 'active';
}

function chargeIdOf(intent: Stripe.PaymentIntent): string | undefined {
  const charge = intent.latest_charge;
  return typeof charge === 'string' ? charge : charge?.id;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Maps a verified Stripe event to the small union the lifecycle handles. */
export function mapStripeEvent(event: unknown): ProviderEvent {
  if (
    !isObject(event) ||
    typeof event.id !== 'string' ||
    typeof event.type !== 'string' ||
    !isObject(event.data) ||
    !isObject(event.data.object)
  ) {
    throw new WebhookSignatureError('the body is not a Stripe event');
  }
  const eventId = event.id;
  const object = event.data.object;
  const id = typeof object.id === 'string' ? object.id : undefined;
  const milestoneIdOf = () => {
    const metadata = object.metadata;
    return isObject(metadata) && typeof metadata.milestone_id === 'string' ? metadata.milestone_id : null;
  };
  switch (event.type) {
    case 'account.updated':
      if (!id) break;
      return { eventId, type: 'account.updated', accountId: id, verified: accountVerified(object as unknown as Stripe.Account) };
    case 'payment_intent.succeeded': {
      if (!id) break;
      const intent = object as unknown as Stripe.PaymentIntent;
      return {
        eventId,
        type: 'payment.succeeded',
        paymentId: id,
        milestoneId: milestoneIdOf(),
        amountCents: intent.amount_received || intent.amount,
        currency: intent.currency,
      };
    }
    case 'payment_intent.payment_failed': {
      if (!id) break;
      const error = (object as unknown as Stripe.PaymentIntent).last_payment_error;
      const reason = error?.message || error?.decline_code || error?.code || 'the payment failed';
      return { eventId, type: 'payment.failed', paymentId: id, milestoneId: milestoneIdOf(), reason };
    }
  }
  return { eventId, type: 'ignored', stripeType: event.type };
}

/**
 * Verifies a Stripe-Signature header against any of the secrets (the platform endpoint and the
 * Connect endpoint each have one) and returns the parsed event.
 */
export function verifyStripeSignature(
  rawBody: Buffer | string,
  header: string | undefined,
  secrets: string[],
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
): unknown {
  if (!header) throw new WebhookSignatureError('the header is missing');
  if (typeof rawBody !== 'string' && !Buffer.isBuffer(rawBody)) {
    throw new WebhookSignatureError('the raw request body is needed to verify the signature');
  }
  const { webhooks, errors } = stripeSdk();
  let failure = 'the signature does not match';
  for (const secret of secrets) {
    try {
      return webhooks.constructEvent(rawBody, header, secret, toleranceSeconds);
    } catch (error) {
      if (error instanceof SyntaxError) throw new WebhookSignatureError('the body is not JSON'); // signed, but not an event
      if (!(error instanceof errors.StripeSignatureVerificationError)) throw error;
      if (/tolerance/i.test(error.message)) failure = 'the timestamp is too old';
      else if (/extract/i.test(error.message)) failure = 'the header is malformed';
    }
  }
  throw new WebhookSignatureError(failure);
}

function classify(error: InstanceType<typeof Stripe.errors.StripeError>): ProviderFailure {
  const E = stripeSdk().errors;
  if (error instanceof E.StripeConnectionError) {
    const detail = error.detail as { code?: string } | undefined;
    return detail?.code === 'ETIMEDOUT' || /timeout/i.test(error.message) ? 'timeout' : 'unreachable';
  }
  if (error instanceof E.StripeAuthenticationError || error instanceof E.StripePermissionError) return 'authentication';
  if (error instanceof E.StripeRateLimitError) return 'rate_limited';
  if (error instanceof E.StripeCardError) return 'declined';
  if (error instanceof E.StripeIdempotencyError) return 'idempotency_conflict';
  if (error.statusCode === 409) return 'in_progress';
  if (error instanceof E.StripeInvalidRequestError) return 'rejected';
  return 'provider_error';
}

export type StripePaymentProvider = PaymentProvider & { readonly name: 'stripe' };

export interface StripeProviderOptions {
  webhookToleranceSeconds?: number;
}

export function createStripeProvider(settings: StripeSettings, options: StripeProviderOptions = {}): StripePaymentProvider {
  const name = 'stripe' satisfies ProviderName;
  const Sdk = stripeSdk();
  const stripe = new Sdk(settings.secretKey, {
    ...(settings.api ?? {}),
    timeout: settings.timeoutMs,
    maxNetworkRetries: settings.maxNetworkRetries,
    telemetry: false,
    appInfo: { name: 'gigmarket' },
  });

  /** Runs one SDK call; every Stripe error, time-out included, becomes a PaymentProviderError. */
  async function call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof Sdk.errors.StripeError)) throw error;
      throw new PaymentProviderError({ provider: name, operation, failure: classify(error), providerCode: error.code, cause: error });
    }
  }

  function toPayment(intent: Stripe.PaymentIntent, operation: string): Payment {
    if (!intent.client_secret) {
      throw new PaymentProviderError({ provider: name, operation, failure: 'provider_error', providerCode: 'no_client_secret' });
    }
    return { paymentId: intent.id, clientSecret: intent.client_secret, status: intent.status as PaymentStatus };
  }

  return {
    name,

    async createConnectedAccount({ userId, email }) {
      const account = await call('create the connected account', () =>
        stripe.accounts.create(
          {
            type: 'express',
            email,
            capabilities: { transfers: { requested: true } },
            metadata: { user_id: userId },
          },
          { idempotencyKey: idempotencyKeys.account(userId) },
        ),
      );
      return { accountId: account.id };
    },

    async createOnboardingLink({ accountId, refreshUrl, returnUrl }) {
      const link = await call('create the onboarding link', () =>
        stripe.accountLinks.create({
          account: accountId,
          refresh_url: refreshUrl,
          return_url: returnUrl,
          type: 'account_onboarding',
        }),
      );
      return { url: link.url };
    },

    async getAccount(accountId) {
      const account = await call('read the connected account', () => stripe.accounts.retrieve(accountId));
      return { accountId: account.id, verified: accountVerified(account) };
    },

    async createPayment({ milestoneId, amountCents, currency, description, metadata }) {
      if (!Number.isInteger(amountCents) || amountCents <= 0) {
        throw new Error(`createPayment needs a positive integer amount, got ${amountCents}`); // zero is funded without a payment
      }
      const intent = await call('create the payment', () =>
        stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: currency.toLowerCase(),
            description,
            metadata: { ...metadata, milestone_id: milestoneId },
            automatic_payment_methods: { enabled: true },
            transfer_group: transferGroup(milestoneId),
          },
          { idempotencyKey: idempotencyKeys.payment(milestoneId) },
        ),
      );
      return toPayment(intent, 'create the payment');
    },

    async getPayment(paymentId) {
      const intent = await call('read the payment', () => stripe.paymentIntents.retrieve(paymentId));
      return toPayment(intent, 'read the payment');
    },

    async createTransfer({ milestoneId, amountCents, currency, destinationAccountId, paymentId }) {
      let sourceTransaction: string | undefined;
      if (paymentId) {
        const intent = await call('read the funding payment', () => stripe.paymentIntents.retrieve(paymentId));
        sourceTransaction = chargeIdOf(intent);
        if (!sourceTransaction) {
          throw new PaymentProviderError({
            provider: name,
            operation: 'create the payout',
            failure: 'rejected',
            providerCode: 'payment_not_charged',
          });
        }
      }
      const transfer = await call('create the payout', () =>
        stripe.transfers.create(
          {
            amount: amountCents,
            currency: currency.toLowerCase(),
            destination: destinationAccountId,
            transfer_group: transferGroup(milestoneId),
            source_transaction: sourceTransaction,
            metadata: { milestone_id: milestoneId },
          },
          { idempotencyKey: idempotencyKeys.transfer(milestoneId) },
        ),
      );
      return { transferId: transfer.id };
    },

    async refund({ milestoneId, paymentId, amountCents }) {
      if (!Number.isInteger(amountCents) || amountCents <= 0) throw new Error(`refund needs a positive integer amount, got ${amountCents}`);
      // A partial refund of the PaymentIntent's charge; a split's transfer of the rest then draws on what is left of it.
      const refund = await call('refund the payment', () =>
        stripe.refunds.create(
          { payment_intent: paymentId, amount: amountCents, metadata: { milestone_id: milestoneId } },
          { idempotencyKey: idempotencyKeys.refund(milestoneId) },
        ),
      );
      return { refundId: refund.id };
    },

    parseWebhook(rawBody, signatureHeader) {
      const event = verifyStripeSignature(rawBody, signatureHeader, settings.webhookSecrets, options.webhookToleranceSeconds);
      return mapStripeEvent(event);
    },
  };
}
