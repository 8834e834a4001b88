import type { AppDeps } from '../deps';
import type { Clock } from '../platform/clock';
import type { Mode } from '../platform/tables';
import { decryptSecret } from '../platform/crypto';
import type { PaymentProvider } from './provider';
import { SimulatorProvider } from './simulator';
import { TossProvider } from './toss';

export type { VirtualAccountIssued, RefundReceiveAccount, PaymentProvider, PaymentEntry, AuthorizeInput, AuthorizeResult, Outcome, ConfirmInput, ConfirmResult, RefundInput, RefundResult, PaymentLookup, PaymentCancel, BillingKeyResult, CredentialsCheck, IssueBillingKeyInput, GatewayTransaction, ListTransactionsInput, TransactionPage } from './provider';
export { SimulatorProvider, TEST_CARDS } from './simulator';
export { TossProvider } from './toss';

// The simulator remembers first approval times and refunds/charges by idempotency key, so one instance per clock
// keeps retries idempotent across requests. Weak keys: a test app's clock and its simulator go away together.
const simulators = new WeakMap<Clock, SimulatorProvider>();

export function simulatorFor(clock: Clock): SimulatorProvider {
  let sim = simulators.get(clock);
  if (!sim) {
    sim = new SimulatorProvider({ clock });
    simulators.set(clock, sim);
  }
  return sim;
}

/**
 * The gateway a store uses in one mode, or null when it has none (the caller answers CHECKOUT_NOT_CONFIGURED).
 * The simulator is test-mode only: a live store can never take a simulated payment.
 */
export function providerFor(
  deps: Pick<AppDeps, 'config' | 'clock'>,
  settings: { mode: Mode; payment_provider: 'simulator' | 'toss' | null; toss_secret_key_sealed: string | null },
): PaymentProvider | null {
  if (settings.payment_provider === 'simulator') return settings.mode === 'test' ? simulatorFor(deps.clock) : null;
  if (settings.payment_provider === 'toss') {
    if (!settings.toss_secret_key_sealed) return null;
    return tossProviderFor(deps, decryptSecret(deps.config.masterKey, settings.toss_secret_key_sealed).toString('utf8'));
  }
  return null;
}

/** Toss with the given secret key: the store's sealed key (providerFor), or a key being saved, to verify it first. */
export function tossProviderFor(deps: Pick<AppDeps, 'config' | 'clock'>, secretKey: string): PaymentProvider {
  return new TossProvider({ secretKey, baseUrl: deps.config.tossApiBaseUrl, timeoutMs: deps.config.tossTimeoutMs, slowTimeoutMs: deps.config.tossBillingTimeoutMs, clock: deps.clock });
}
