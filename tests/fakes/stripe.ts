// A local fake of the part of Stripe's HTTP API we use, for the real stripe-node SDK to talk to
// (STRIPE_API_BASE / host+port+protocol). It speaks Stripe's wire format: form-encoded bodies with
// nested keys, Bearer auth, Stripe's error shape, and idempotency keys as Stripe honours them:
// the same key and parameters replay the stored response (Idempotent-Replayed: true), the same key
// with other parameters is a 400 idempotency_error, a key still in flight is a 409, and a request
// that fails validation stores nothing. Refunds draw on a charge, and a transfer tied to a charge
// (source_transaction) may take only what refunds and earlier transfers left of it, as Stripe's
// balance rules have it. Test controls: failNext, delayNext, holdNext, verifyAccount, succeedPaymentIntent,
// failPaymentIntent, buildEvent, signedWebhook, counts, requests.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Stripe from 'stripe';
import { listenLocal, closeServer } from './local-server.ts';

type Json = Record<string, unknown>;
type Params = Record<string, unknown>;

/** Stripe's error object (the value of `error` in a response body). */
export interface StripeErrorBody {
  type: 'invalid_request_error' | 'card_error' | 'api_error' | 'idempotency_error' | 'rate_limit_error' | string;
  message: string;
  code?: string;
  param?: string;
  decline_code?: string;
}

export interface FakeRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  params: Params;
  status: number;
  replayed: boolean;
}

class StripeHttpError extends Error {
  readonly status: number;
  readonly body: StripeErrorBody;
  constructor(status: number, body: StripeErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const token = (n = 24) => [...randomBytes(n)].map((b) => BASE62[b % 62]).join('');
const now = () => Math.floor(Date.now() / 1000);

/** `a[b][0]=x` → { a: { b: ['x'] } }, the way Stripe (and qs) read form bodies. */
export function parseForm(body: string): Params {
  const root: Params = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const path = rawKey.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[i + 1]!);
      const key = part === '' && Array.isArray(node) ? String(node.length) : part;
      if (last) {
        node[key] = value;
        return;
      }
      node[key] ??= nextIsIndex ? [] : {};
      node = node[key] as Record<string, unknown>;
    });
  }
  return root;
}

/** JSON with sorted keys, to compare two requests' parameters. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, val) =>
    val && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => a.localeCompare(b)))
      : val,
  );

const invalid = (message: string, extra: Partial<StripeErrorBody> = {}) =>
  new StripeHttpError(400, { type: 'invalid_request_error', message, ...extra });
const missingParam = (param: string) => invalid(`Missing required param: ${param}.`, { code: 'parameter_missing', param });
const noSuch = (what: string, id: string, param?: string) =>
  new StripeHttpError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${what}: '${id}'`,
    ...(param ? { param } : {}),
  });

const defaultErrors: Record<number, StripeErrorBody> = {
  400: { type: 'invalid_request_error', message: 'Invalid request.' },
  402: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  429: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' },
  500: { type: 'api_error', message: "Something went wrong on Stripe's end." },
};

const allowed: Record<string, string[]> = {
  '/v1/accounts': [
    'type',
    'country',
    'email',
    'capabilities',
    'metadata',
    'business_type',
    'business_profile',
    'controller',
    'tos_acceptance',
    'settings',
    'default_currency',
    'individual',
    'company',
    'external_account',
  ],
  '/v1/account_links': ['account', 'refresh_url', 'return_url', 'type', 'collect', 'collection_options'],
  '/v1/payment_intents': [
    'amount',
    'currency',
    'description',
    'metadata',
    'automatic_payment_methods',
    'transfer_group',
    'customer',
    'payment_method',
    'payment_method_types',
    'confirm',
    'capture_method',
    'receipt_email',
    'on_behalf_of',
    'statement_descriptor',
    'statement_descriptor_suffix',
    'transfer_data',
    'application_fee_amount',
    'setup_future_usage',
  ],
  '/v1/transfers': ['amount', 'currency', 'destination', 'description', 'metadata', 'source_transaction', 'transfer_group', 'source_type'],
  '/v1/refunds': [
    'payment_intent',
    'charge',
    'amount',
    'metadata',
    'reason',
    'instructions_email',
    'refund_application_fee',
    'reverse_transfer',
  ],
};

function checkParams(path: string, params: Params) {
  for (const key of Object.keys(params)) {
    if (key !== 'expand' && !allowed[path]!.includes(key)) {
      throw invalid(`Received unknown parameter: ${key}`, { code: 'parameter_unknown', param: key });
    }
  }
}

function amountParam(params: Params): number {
  if (params.amount === undefined) throw missingParam('amount');
  const amount = Number(params.amount);
  if (!/^\d+$/.test(String(params.amount)) || amount < 1) {
    throw invalid('Invalid positive integer', { code: 'parameter_invalid_integer', param: 'amount' });
  }
  return amount;
}

function currencyParam(params: Params): string {
  if (params.currency === undefined) throw missingParam('currency');
  const currency = String(params.currency);
  if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency.toLowerCase()}.`, { param: 'currency' });
  return currency;
}

const metadataParam = (params: Params): Record<string, string> =>
  (params.metadata && typeof params.metadata === 'object' ? params.metadata : {}) as Record<string, string>;

interface Rule {
  match: string | undefined;
  used: boolean;
}
interface FailRule extends Rule {
  status: number;
  error: StripeErrorBody;
}
interface DelayRule extends Rule {
  ms: number;
  until?: Promise<unknown>;
}
interface Stored {
  method: string;
  path: string;
  params: string;
  status: number;
  body: Json;
  requestId: string;
}

export interface FakeStripe {
  /** http://127.0.0.1:<port>, for STRIPE_API_BASE. */
  readonly url: string;
  readonly api: { host: string; port: number; protocol: 'http' };
  readonly secretKey: string;
  readonly accounts: Map<string, Json>;
  readonly paymentIntents: Map<string, Json>;
  readonly transfers: Map<string, Json>;
  readonly refunds: Map<string, Json>;
  /** Every API request answered, in order. */
  readonly requests: FakeRequest[];
  /** How many objects each endpoint created (replays and rejected requests create none). */
  counts(): { accounts: number; accountLinks: number; paymentIntents: number; transfers: number; refunds: number };
  /** The next request (or the next whose "METHOD /path" starts with `match`) fails; nothing is stored. */
  failNext(status: number, error?: StripeErrorBody, match?: string): void;
  /** The next request (or the next matching) is answered after `ms`, its idempotency key in flight meanwhile. */
  delayNext(ms: number, match?: string): void;
  /** The next request (or the next matching) is answered once `until` settles, its idempotency key in flight meanwhile. */
  holdNext(until: Promise<unknown>, match?: string): void;
  /** How many requests holdNext holds right now. */
  holding(): number;
  /** Onboarding done: details submitted, transfers active, charges and payouts enabled. */
  verifyAccount(id: string): Json;
  /** The client confirmed: status succeeded, a charge, amount_received. */
  succeedPaymentIntent(id: string): Json;
  failPaymentIntent(id: string, error?: Partial<StripeErrorBody>): Json;
  /** A Stripe event around a (copy of an) object, as a webhook delivers it. */
  buildEvent(type: string, object: Json, options?: { account?: string }): Json;
  /** The event's JSON body and a valid Stripe-Signature header for it. */
  signedWebhook(event: Json, secret: string, timestamp?: number): { body: string; signature: string };
  close(): Promise<void>;
}

export async function startFakeStripe(options: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? `sk_test_fake_${token(24)}`;
  const accounts = new Map<string, Json>();
  const accountLinks = new Map<string, { account: string; refreshUrl: string; returnUrl: string; expiresAt: number }>();
  const paymentIntents = new Map<string, Json>();
  const transfers = new Map<string, Json>();
  const refunds = new Map<string, Json>();
  /** What each charge took, and what refunds and transfers drew on it since. */
  const charges = new Map<string, { amount: number; currency: string; refunded: number; transferred: number }>();
  let linksCreated = 0;
  const idempotent = new Map<string, Stored>();
  const inFlight = new Set<string>();
  const requests: FakeRequest[] = [];
  const failures: FailRule[] = [];
  const delays: DelayRule[] = [];
  let holding = 0;
  let url = '';

  const take = <R extends Rule>(rules: R[], route: string): R | undefined => {
    const rule = rules.find((r) => !r.used && (!r.match || route.startsWith(r.match)));
    if (rule) rule.used = true;
    return rule;
  };

  function authenticate(req: IncomingMessage) {
    const header = req.headers.authorization ?? '';
    let key = '';
    if (header.startsWith('Bearer ')) key = header.slice(7);
    else if (header.startsWith('Basic ')) key = Buffer.from(header.slice(6), 'base64').toString().split(':')[0] ?? '';
    if (!key) {
      throw new StripeHttpError(401, {
        type: 'invalid_request_error',
        message:
          "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      });
    }
    if (key !== secretKey) {
      throw new StripeHttpError(401, {
        type: 'invalid_request_error',
        message: `Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`,
      });
    }
  }

  // --- endpoints: each validates, then creates; throwing before creating stores nothing ---

  function createAccount(params: Params): Json {
    checkParams('/v1/accounts', params);
    if (!params.type && !params.controller) throw missingParam('type');
    if (params.type && !['express', 'standard', 'custom'].includes(String(params.type))) {
      throw invalid(`Invalid type: must be one of custom, express, or standard`, { param: 'type' });
    }
    const id = `acct_${token(16)}`;
    const requested = (params.capabilities ?? {}) as Record<string, { requested?: string }>;
    const account: Json = {
      id,
      object: 'account',
      type: params.type ?? 'custom',
      email: params.email ?? null,
      country: params.country ?? 'US',
      default_currency: 'usd',
      created: now(),
      business_type: params.business_type ?? null,
      business_profile: {},
      capabilities: Object.fromEntries(
        Object.entries(requested)
          .filter(([, c]) => c.requested === 'true')
          .map(([name]) => [name, 'inactive']),
      ),
      charges_enabled: false,
      payouts_enabled: false,
      details_submitted: false,
      requirements: {
        alternatives: [],
        current_deadline: null,
        currently_due: ['business_type', 'external_account', 'tos_acceptance.date', 'tos_acceptance.ip'],
        disabled_reason: 'requirements.past_due',
        errors: [],
        eventually_due: ['business_type', 'external_account'],
        past_due: [],
        pending_verification: [],
      },
      external_accounts: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/accounts/${id}/external_accounts` },
      metadata: metadataParam(params),
      settings: {},
      tos_acceptance: { date: null },
    };
    accounts.set(id, account);
    return account;
  }

  function createAccountLink(params: Params): Json {
    checkParams('/v1/account_links', params);
    if (!params.account) throw missingParam('account');
    if (!params.type) throw missingParam('type');
    if (!['account_onboarding', 'account_update'].includes(String(params.type))) throw invalid('Invalid type', { param: 'type' });
    if (!accounts.has(String(params.account)))
      throw invalid(`No such account: '${params.account}'`, { code: 'resource_missing', param: 'account' });
    if (params.type === 'account_onboarding' && !params.return_url) throw missingParam('return_url');
    const created = now();
    const linkToken = token(24);
    linksCreated += 1;
    accountLinks.set(linkToken, {
      account: String(params.account),
      refreshUrl: String(params.refresh_url ?? ''),
      returnUrl: String(params.return_url ?? ''),
      expiresAt: created + 300,
    });
    return { object: 'account_link', created, expires_at: created + 300, url: `${url}/setup/e/${params.account}/${linkToken}` };
  }

  function createPaymentIntent(params: Params): Json {
    checkParams('/v1/payment_intents', params);
    const amount = amountParam(params);
    const currency = currencyParam(params);
    if (amount < 50 && ['usd', 'eur', 'gbp'].includes(currency)) {
      throw invalid(`Amount must be at least 50 cents`, { code: 'amount_too_small', param: 'amount' });
    }
    const id = `pi_${token(24)}`;
    const apm = params.automatic_payment_methods as { enabled?: string } | undefined;
    const intent: Json = {
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: apm?.enabled === 'true' ? { allow_redirects: 'always', enabled: true } : null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: 'automatic_async',
      client_secret: `${id}_secret_${token(25)}`,
      confirmation_method: 'automatic',
      created: now(),
      currency,
      customer: params.customer ?? null,
      description: params.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: metadataParam(params),
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_types: apm?.enabled === 'true' ? ['card', 'link'] : ['card'],
      receipt_email: null,
      setup_future_usage: null,
      shipping: null,
      statement_descriptor: null,
      status: 'requires_payment_method',
      transfer_data: null,
      transfer_group: params.transfer_group ?? null,
    };
    paymentIntents.set(id, intent);
    return intent;
  }

  function createTransfer(params: Params): Json {
    checkParams('/v1/transfers', params);
    const amount = amountParam(params);
    const currency = currencyParam(params);
    if (!params.destination) throw missingParam('destination');
    const destination = accounts.get(String(params.destination));
    if (!destination) throw invalid(`No such destination: '${params.destination}'`, { code: 'resource_missing', param: 'destination' });
    if ((destination.capabilities as Record<string, string>).transfers !== 'active') {
      throw invalid(
        'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
        { code: 'insufficient_capabilities_for_transfer', param: 'destination' },
      );
    }
    const source = params.source_transaction ? charges.get(String(params.source_transaction)) : undefined;
    if (params.source_transaction && !source) {
      throw invalid(`No such charge: '${params.source_transaction}'`, { code: 'resource_missing', param: 'source_transaction' });
    }
    if (source && amount > source.amount - source.refunded - source.transferred) {
      throw invalid(
        `Insufficient funds in the source transaction: it has ${source.amount - source.refunded - source.transferred} available, the transfer needs ${amount}.`,
        { code: 'insufficient_funds', param: 'amount' },
      );
    }
    if (source) source.transferred += amount;
    const id = `tr_${token(24)}`;
    const transfer: Json = {
      id,
      object: 'transfer',
      amount,
      amount_reversed: 0,
      balance_transaction: `txn_${token(24)}`,
      created: now(),
      currency,
      description: params.description ?? null,
      destination: destination.id,
      destination_payment: `py_${token(24)}`,
      livemode: false,
      metadata: metadataParam(params),
      reversals: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/transfers/${id}/reversals` },
      reversed: false,
      source_transaction: params.source_transaction ?? null,
      source_type: 'card',
      transfer_group: params.transfer_group ?? null,
    };
    transfers.set(id, transfer);
    return transfer;
  }

  function createRefund(params: Params): Json {
    checkParams('/v1/refunds', params);
    if (!params.payment_intent && !params.charge)
      throw invalid('One of the following params should be provided for this request: payment_intent or charge.');
    const intent = params.payment_intent ? paymentIntents.get(String(params.payment_intent)) : undefined;
    if (params.payment_intent && !intent) throw noSuch('payment_intent', String(params.payment_intent), 'payment_intent');
    const chargeId = String(params.charge ?? intent?.latest_charge ?? '');
    const charge = charges.get(chargeId);
    if (!charge) {
      throw invalid(`This PaymentIntent (${params.payment_intent}) does not have a successful charge to refund.`, {
        code: 'charge_not_refundable',
      });
    }
    const left = charge.amount - charge.refunded - charge.transferred;
    const amount = params.amount === undefined ? left : amountParam(params);
    if (amount > left) {
      throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, {
        code: 'amount_too_large',
        param: 'amount',
      });
    }
    charge.refunded += amount;
    const id = `re_${token(24)}`;
    const refund: Json = {
      id,
      object: 'refund',
      amount,
      balance_transaction: `txn_${token(24)}`,
      charge: chargeId,
      created: now(),
      currency: charge.currency,
      metadata: metadataParam(params),
      payment_intent: intent?.id ?? null,
      reason: params.reason ?? null,
      status: 'succeeded',
    };
    refunds.set(id, refund);
    return refund;
  }

  const creators: Record<string, (params: Params) => Json> = {
    '/v1/accounts': createAccount,
    '/v1/account_links': createAccountLink,
    '/v1/payment_intents': createPaymentIntent,
    '/v1/transfers': createTransfer,
    '/v1/refunds': createRefund,
  };

  function retrieve(path: string): Json | undefined {
    let m = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (m) {
      const a = accounts.get(m[1]!);
      if (!a) throw noSuch('account', m[1]!);
      return a;
    }
    m = /^\/v1\/payment_intents\/([^/]+)$/.exec(path);
    if (m) {
      const pi = paymentIntents.get(m[1]!);
      if (!pi) throw noSuch('payment_intent', m[1]!, 'intent');
      return pi;
    }
    return undefined;
  }

  // --- HTTP ---

  function send(res: ServerResponse, status: number, body: Json, headers: Record<string, string> = {}) {
    if (res.destroyed || res.writableEnded) return; // the client gave up (time-out); the work is done regardless
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': headers['request-id'] ?? `req_${token(14)}`, ...headers });
    res.end(JSON.stringify(body));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, rawBody: string) {
    const method = req.method ?? 'GET';
    const { pathname, search } = new URL(req.url ?? '/', 'http://fake');
    const requestId = `req_${token(14)}`;
    const idempotencyKey = method === 'POST' ? (req.headers['idempotency-key'] as string | undefined) : undefined;
    const params = parseForm(method === 'GET' ? search.slice(1) : rawBody);
    const log: FakeRequest = { method, path: pathname, idempotencyKey, params, status: 0, replayed: false };
    const reply = (status: number, body: Json, headers: Record<string, string> = {}) => {
      log.status = status;
      requests.push(log);
      send(res, status, body, { 'request-id': requestId, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}), ...headers });
    };
    const route = `${method} ${pathname}`;
    try {
      authenticate(req);
      const failure = take(failures, route);
      if (failure) throw new StripeHttpError(failure.status, failure.error);

      if (idempotencyKey) {
        const stored = idempotent.get(idempotencyKey);
        if (stored) {
          if (stored.method !== method || stored.path !== pathname) {
            throw new StripeHttpError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${stored.path}' vs '${pathname}'). Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            });
          }
          if (stored.params !== canonical(params)) {
            throw new StripeHttpError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            });
          }
          log.replayed = true;
          return reply(stored.status, stored.body, { 'idempotent-replayed': 'true', 'original-request': stored.requestId });
        }
        if (inFlight.has(idempotencyKey)) {
          throw new StripeHttpError(409, {
            type: 'idempotency_error',
            code: 'idempotency_key_in_use',
            message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${idempotencyKey}. Please try again later.`,
          });
        }
      }

      if (method === 'GET') {
        const found = retrieve(pathname);
        if (found) return reply(200, found);
      }
      const create = method === 'POST' ? creators[pathname] : undefined;
      if (!create) {
        throw new StripeHttpError(404, {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        });
      }
      if (idempotencyKey) inFlight.add(idempotencyKey);
      try {
        const delay = take(delays, route);
        if (delay) await new Promise((resolve) => setTimeout(resolve, delay.ms));
        if (delay?.until) {
          holding++;
          await delay.until.finally(() => holding--);
        }
        const body = create(params);
        if (idempotencyKey)
          idempotent.set(idempotencyKey, { method, path: pathname, params: canonical(params), status: 200, body, requestId });
        return reply(200, body);
      } finally {
        if (idempotencyKey) inFlight.delete(idempotencyKey);
      }
    } catch (error) {
      if (!(error instanceof StripeHttpError)) throw error;
      const retry: Record<string, string> = error.status === 409 ? { 'stripe-should-retry': 'true' } : {};
      return reply(
        error.status,
        { error: { ...error.body, request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } },
        retry,
      );
    }
  }

  /** The hosted onboarding page an account link points at: visiting it completes onboarding. */
  function onboardingPage(res: ServerResponse, linkToken: string) {
    const link = accountLinks.get(linkToken);
    if (!link) {
      res.writeHead(404).end('unknown account link');
      return;
    }
    accountLinks.delete(linkToken); // account links are single-use
    if (link.expiresAt < now()) {
      res.writeHead(302, { location: link.refreshUrl }).end();
      return;
    }
    verifyAccount(link.account);
    res.writeHead(302, { location: link.returnUrl }).end();
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const setup = /^\/setup\/e\/[^/]+\/([^/?]+)/.exec(req.url ?? '');
      if (req.method === 'GET' && setup) return onboardingPage(res, setup[1]!);
      handle(req, res, Buffer.concat(chunks).toString()).catch((error: unknown) => {
        send(res, 500, { error: { type: 'api_error', message: `fake stripe crashed: ${String(error)}` } });
      });
    });
  });
  url = await listenLocal(server);

  function verifyAccount(id: string): Json {
    const account = accounts.get(id);
    if (!account) throw new Error(`fake stripe: no account ${id}`);
    const capabilities = account.capabilities as Record<string, string>;
    for (const name of Object.keys(capabilities)) capabilities[name] = 'active';
    Object.assign(account, {
      charges_enabled: true,
      payouts_enabled: true,
      details_submitted: true,
      tos_acceptance: { date: now() },
      requirements: { ...(account.requirements as Json), currently_due: [], eventually_due: [], past_due: [], disabled_reason: null },
    });
    return account;
  }

  function intentOf(id: string): Json {
    const intent = paymentIntents.get(id);
    if (!intent) throw new Error(`fake stripe: no payment intent ${id}`);
    return intent;
  }

  return {
    url,
    api: { host: '127.0.0.1', port: Number(new URL(url).port), protocol: 'http' },
    secretKey,
    accounts,
    paymentIntents,
    transfers,
    refunds,
    requests,
    counts: () => ({
      accounts: accounts.size,
      accountLinks: linksCreated,
      paymentIntents: paymentIntents.size,
      transfers: transfers.size,
      refunds: refunds.size,
    }),
    failNext(status, error, match) {
      failures.push({ status, error: error ?? defaultErrors[status] ?? defaultErrors[500]!, match, used: false });
    },
    delayNext(ms, match) {
      delays.push({ ms, match, used: false });
    },
    holdNext(until, match) {
      delays.push({ ms: 0, until, match, used: false });
    },
    holding: () => holding,
    verifyAccount,
    succeedPaymentIntent(id) {
      const intent = intentOf(id);
      const charge = `ch_${token(24)}`;
      charges.set(charge, { amount: Number(intent.amount), currency: String(intent.currency), refunded: 0, transferred: 0 });
      return Object.assign(intent, {
        status: 'succeeded',
        latest_charge: charge,
        amount_received: intent.amount,
        payment_method: `pm_${token(24)}`,
      });
    },
    failPaymentIntent(id, error = {}) {
      const intent = intentOf(id);
      const lastError = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
        ...error,
      };
      return Object.assign(intent, { status: 'requires_payment_method', last_payment_error: lastError });
    },
    buildEvent(type, object, options = {}) {
      return {
        id: `evt_${token(24)}`,
        object: 'event',
        api_version: Stripe.API_VERSION,
        created: now(),
        data: { object: structuredClone(object) },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        ...(options.account ? { account: options.account } : {}),
      };
    },
    signedWebhook(event, secret, timestamp) {
      const body = JSON.stringify(event);
      return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret, ...(timestamp ? { timestamp } : {}) }) };
    },
    async close() {
      await closeServer(server);
    },
  };
}
