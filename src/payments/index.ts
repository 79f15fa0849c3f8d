// Picks the payment provider from the settings (docs/architecture.md §7): stripe when STRIPE_SECRET_KEY is set,
// else the sandbox. Narrow on `provider.name === 'sandbox'` to reach the sandbox pages' helpers.
import type { Config } from '../config.ts';
import { createSandboxProvider, type SandboxPaymentProvider } from './sandbox.ts';
import { createStripeProvider, type StripePaymentProvider } from './stripe.ts';

export type AnyPaymentProvider = StripePaymentProvider | SandboxPaymentProvider;

export function createPaymentProvider(
  config: Pick<Config, 'payments'>,
  options: { publicUrl: string; secret: string },
): AnyPaymentProvider {
  const { stripe } = config.payments;
  if (config.payments.provider === 'stripe' && stripe) return createStripeProvider(stripe);
  return createSandboxProvider(options);
}

export * from './provider.ts';
export type { SandboxPaymentProvider } from './sandbox.ts';
export type { StripePaymentProvider } from './stripe.ts';
export { SANDBOX_PREFIX } from './sandbox.ts';
export { accountVerified } from './stripe.ts';
