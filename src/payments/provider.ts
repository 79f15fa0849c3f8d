// The one payments interface the contract lifecycle talks to (docs/architecture.md §7); stripe.ts and sandbox.ts
// implement it. Every id the lifecycle passes in (user, milestone) becomes the provider's
// idempotency key, so a repeated or concurrent call returns the first result and never pays twice.
import { ApiError } from '../errors.ts';

export type ProviderName = 'stripe' | 'sandbox';

/** Stripe's PaymentIntent statuses; the sandbox uses the same words. */
export type PaymentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

export interface CreatePaymentInput {
  milestoneId: string;
  amountCents: number;
  /** ISO 4217, any case; sent lower-case as Stripe expects. */
  currency: string;
  description?: string;
  /** Stored on the payment and echoed back in webhooks; milestone_id is always added. */
  metadata: Record<string, string>;
}

export interface Payment {
  paymentId: string;
  /** What the paying client confirms the payment with (Stripe.js, or the sandbox pay page). */
  clientSecret: string;
  status: PaymentStatus;
}

export interface CreateTransferInput {
  milestoneId: string;
  amountCents: number;
  currency: string;
  destinationAccountId: string;
  /**
   * The payment that funded the milestone. With it, Stripe ties the transfer to that charge
   * (source_transaction), so the payout does not depend on the platform's available balance.
   */
  paymentId?: string;
}

export interface CreateRefundInput {
  milestoneId: string;
  /** The payment that funded the milestone. */
  paymentId: string;
  /** All of the payment, or part of it (a dispute's split). */
  amountCents: number;
  currency: string;
}

/**
 * What a webhook (or the sandbox's own pages) tells the lifecycle. `eventId` is the provider's
 * event id: the lifecycle records it to apply each event once, whatever the delivery count.
 */
export type ProviderEvent =
  | { eventId: string; type: 'account.updated'; accountId: string; verified: boolean }
  | {
      eventId: string;
      type: 'payment.succeeded';
      paymentId: string;
      milestoneId: string | null;
      /** Check these against the milestone before marking it funded. */
      amountCents: number;
      currency: string;
    }
  | { eventId: string; type: 'payment.failed'; paymentId: string; milestoneId: string | null; reason: string }
  | { eventId: string; type: 'ignored'; stripeType: string };

export interface PaymentProvider {
  readonly name: ProviderName;
  /** A Connect Express account for a worker; one per user (idempotency key `gm-acct-<userId>`). */
  createConnectedAccount(input: { userId: string; email?: string }): Promise<{ accountId: string }>;
  /** A fresh, short-lived onboarding (KYC) link; make a new one each time the worker needs it. */
  createOnboardingLink(input: { accountId: string; refreshUrl: string; returnUrl: string }): Promise<{ url: string }>;
  /**
   * The account as the provider sees it now. For reconciliation (e.g. on the onboarding return
   * page); the `account.updated` event is the normal way verification arrives. The sandbox keeps
   * no state and always answers verified: false (see sandbox.ts).
   */
  getAccount(accountId: string): Promise<{ accountId: string; verified: boolean }>;
  /** A PaymentIntent for a milestone (idempotency key `gm-fund-<milestoneId>`). */
  createPayment(input: CreatePaymentInput): Promise<Payment>;
  /**
   * A payment by id. Stripe keeps idempotency keys for at least 24 hours only: after the first
   * createPayment, store paymentId and use this to hand out the client secret again.
   */
  getPayment(paymentId: string): Promise<Payment>;
  /** The payout to the worker's account (idempotency key `gm-payout-<milestoneId>`). */
  createTransfer(input: CreateTransferInput): Promise<{ transferId: string }>;
  /**
   * Gives the client back all or part of a milestone's payment, for a dispute's resolution
   * (idempotency key `gm-refund-<milestoneId>`: a milestone is refunded once).
   */
  refund(input: CreateRefundInput): Promise<{ refundId: string }>;
  /**
   * Verifies the signature over the raw request body (before any JSON parsing) and maps the event.
   * Throws WebhookSignatureError (400) for a missing, wrong or stale signature or a malformed body.
   */
  parseWebhook(rawBody: Buffer | string, signatureHeader: string | undefined): ProviderEvent;
}

/** Why a provider call failed, in our words: never the provider's raw message (it may carry ids or key fragments). */
export type ProviderFailure =
  | 'timeout'
  | 'unreachable'
  | 'authentication'
  | 'rate_limited'
  | 'declined'
  | 'rejected'
  | 'idempotency_conflict'
  | 'in_progress'
  | 'provider_error';

const failureText: Record<ProviderFailure, string> = {
  timeout: 'the provider did not answer in time',
  unreachable: 'the provider could not be reached',
  authentication: 'the provider rejected our credentials',
  rate_limited: 'the provider is rate limiting requests',
  declined: 'the payment was declined',
  rejected: 'the provider rejected the request',
  idempotency_conflict: 'an earlier request for the same item used different parameters',
  in_progress: 'the same request is still in progress; retry shortly',
  provider_error: 'the provider reported an internal error',
};

/**
 * 502 PAYMENT_PROVIDER_ERROR: the provider failed or timed out. Nothing was changed on our side;
 * retrying is safe because every mutating call carries a deterministic idempotency key.
 */
export class PaymentProviderError extends ApiError {
  readonly provider: ProviderName;
  readonly operation: string;
  readonly failure: ProviderFailure;
  /** The provider's machine code (e.g. card_declined, parameter_missing), for logs and tests. */
  readonly providerCode: string | undefined;

  constructor(input: { provider: ProviderName; operation: string; failure: ProviderFailure; providerCode?: string; cause?: unknown }) {
    const code = input.providerCode ? ` (${input.providerCode})` : '';
    super(
      'PAYMENT_PROVIDER_ERROR',
      `payment provider ${input.provider} could not ${input.operation}: ${failureText[input.failure]}${code}`,
    );
    this.name = 'PaymentProviderError';
    this.provider = input.provider;
    this.operation = input.operation;
    this.failure = input.failure;
    this.providerCode = input.providerCode;
    if (input.cause !== undefined) this.cause = input.cause;
  }
}

/** A webhook whose signature is missing, wrong or stale, or whose body is not an event: 400. */
export class WebhookSignatureError extends ApiError {
  constructor(message: string) {
    super('VALIDATION_FAILED', `stripe-signature: ${message}`, [{ path: 'header.stripe-signature', message }]);
    this.name = 'WebhookSignatureError';
  }
}

/** Idempotency keys, one place: the same business action always maps to the same key. */
export const idempotencyKeys = {
  account: (userId: string) => `gm-acct-${userId}`,
  payment: (milestoneId: string) => `gm-fund-${milestoneId}`,
  transfer: (milestoneId: string) => `gm-payout-${milestoneId}`,
  refund: (milestoneId: string) => `gm-refund-${milestoneId}`,
};

/** Ties a milestone's payment and payout together in Stripe's dashboard (transfer_group). */
export const transferGroup = (milestoneId: string) => `gm-milestone-${milestoneId}`;
