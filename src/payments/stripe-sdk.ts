// The stripe-node SDK, loaded on first use: by the Stripe provider when it is created (only with
// STRIPE_SECRET_KEY), by the sandbox only when a signed webhook reaches it (tests, local scripts).
// Imported at start-up it cost the server heap and, through its fetch client, Node's bundled
// undici (docs/performance.md, Memory). require(), not import(): webhook parsing is
// synchronous (PaymentProvider.parseWebhook), and the CommonJS build is the same SDK.
import { createRequire } from 'node:module';
import type Stripe from 'stripe';

let sdk: typeof Stripe | undefined;

/** The SDK's `Stripe` class (with its static `webhooks` and `errors`), loaded once. */
export function stripeSdk(): typeof Stripe {
  sdk ??= createRequire(import.meta.url)('stripe') as typeof Stripe;
  return sdk;
}
