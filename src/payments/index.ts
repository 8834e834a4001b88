import type { AppDeps } from '../deps';
import type { Clock } from '../platform/clock';
import type { Mode, TossKeyPair } from '../platform/tables';
import { decryptSecret } from '../platform/crypto';
import type { PaymentProvider, PaymentProviderName } from './provider';
import { providerTraits } from './registry';
import { SimulatorProvider } from './simulator';
import { TossProvider } from './toss';
import { portoneProviderFromSettings } from './portone-settings';

export type { VirtualAccountIssued, RefundReceiveAccount, PaymentProvider, PaymentEntry, AuthorizeInput, AuthorizeResult, Outcome, ConfirmInput, ConfirmResult, RefundInput, RefundResult, PaymentLookup, PaymentCancel, BillingKeyResult, CredentialsCheck, IssueBillingKeyInput, GatewayTransaction, ListTransactionsInput, TransactionPage, GatewaySettlement, ListSettlementsInput } from './provider';
export { SimulatorProvider } from './simulator';
export { TEST_CARDS } from './simulator-cards';
export { TossProvider } from './toss';
export { readTossNotice } from './toss-notice';
export { readPortOneNotice } from './portone-notice';
export { checkPortOneInput, verifyPortOneCredentials, portoneWebhookSecretOf, type PortOneSettings } from './portone-settings';
export type { GatewayNotice } from './provider';
export type { PaymentProviderName, ProviderTraits, CredentialsPresence } from './registry';
export { providerTraits, providersWith, providerNameOrDefault, paidAtOf, checkoutConfigured, PROVIDER_NAMES } from './registry';

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

/** A mode's settings as far as choosing its gateway goes (a store_mode_settings row has all of it). */
export interface GatewaySettings {
  mode: Mode;
  payment_provider: PaymentProviderName | null;
  toss_secret_key_sealed: string | null;
  /** The 자동결제 MID's secret key, when the mode holds a second pair for billing (migration 068). */
  toss_billing_secret_key_sealed?: string | null;
  toss_client_key?: string | null;
  toss_billing_client_key?: string | null;
  /** PortOne (migration 118): absent for a caller that only builds Toss or the simulator. */
  portone_store_id?: string | null;
  portone_api_secret_sealed?: string | null;
  portone_webhook_secret_sealed?: string | null;
  portone_channel_keys?: Record<string, string> | null;
}

/**
 * The credential set (Toss: key pair) a new piece of work uses: subscriptions (billing-auth window, billing key issue, charges, card
 * change) use the 자동결제 pair when the mode holds one, everything else the first pair. Toss contracts 자동결제 under
 * its own MID with its own keys (https://docs.tosspayments.com/guides/v2/billing/integration-quick: "자동결제(빌링)로
 * 계약된 상점아이디(MID)를 선택한 다음에 클라이언트 키와 시크릿 키를 확인하세요"). Work already done keeps the pair it
 * was done with (orders.toss_key_pair, subscriptions.toss_key_pair).
 */
export function credentialSetFor(settings: GatewaySettings, use: 'payments' | 'billing'): TossKeyPair {
  return use === 'billing' && settings.payment_provider !== null && providerTraits(settings.payment_provider).hasBillingCredentials && settings.toss_billing_secret_key_sealed ? 'billing' : 'payments';
}

/** The client key of a pair (what the payment or billing-auth window opens with). */
export function clientKeyOf(settings: GatewaySettings, pair: TossKeyPair): string | null {
  return (pair === 'billing' ? settings.toss_billing_client_key : settings.toss_client_key) ?? null;
}

/**
 * What the buyer's browser opens to register a card for 자동결제 with the mode's gateway: its SDK and the public keys
 * it opens with (Toss: the pair's client key for `requestBillingAuth`; PortOne: the store id and the card channel for
 * `requestIssueBillingKey`). Null when the mode holds none (no card change offered).
 */
export type BillingWindow = { sdk: 'toss'; clientKey: string } | { sdk: 'portone'; storeId: string; channelKey: string };
export function billingWindowOf(settings: GatewaySettings, pair: TossKeyPair): BillingWindow | null {
  if (settings.payment_provider === 'portone') {
    const channelKey = settings.portone_channel_keys?.card;
    return settings.portone_store_id && channelKey ? { sdk: 'portone', storeId: settings.portone_store_id, channelKey } : null;
  }
  const clientKey = clientKeyOf(settings, pair);
  return clientKey ? { sdk: 'toss', clientKey } : null;
}

/**
 * The gateway a store uses in one mode, or null when it has none (the caller answers CHECKOUT_NOT_CONFIGURED).
 * The simulator is test-mode only: a live store can never take a simulated payment. `pair` picks which of the mode's
 * Toss key pairs signs the calls (default the first); a pair the settings no longer hold gives null, never the other
 * pair's key, since a payment or billing key of one MID is unknown to the other.
 */
export function providerFor(deps: Pick<AppDeps, 'config' | 'clock'>, settings: GatewaySettings, pair: TossKeyPair = 'payments'): PaymentProvider | null {
  if (settings.payment_provider === 'simulator') return settings.mode === 'test' ? simulatorFor(deps.clock) : null;
  if (settings.payment_provider === 'toss') {
    const sealed = pair === 'billing' ? settings.toss_billing_secret_key_sealed : settings.toss_secret_key_sealed;
    if (!sealed) return null;
    return tossProviderFor(deps, decryptSecret(deps.config.masterKey, sealed).toString('utf8'));
  }
  // PortOne holds one credential set per mode: there is no 자동결제 pair to pick.
  if (settings.payment_provider === 'portone') return pair === 'payments' ? portoneProviderFromSettings(deps, { mode: settings.mode, portone_store_id: settings.portone_store_id ?? null, portone_api_secret_sealed: settings.portone_api_secret_sealed ?? null }) : null;
  return null;
}

/** Toss with the given secret key: the store's sealed key (providerFor), or a key being saved, to verify it first. */
export function tossProviderFor(deps: Pick<AppDeps, 'config' | 'clock'>, secretKey: string): PaymentProvider {
  return new TossProvider({ secretKey, baseUrl: deps.config.tossApiBaseUrl, timeoutMs: deps.config.tossTimeoutMs, slowTimeoutMs: deps.config.tossBillingTimeoutMs, clock: deps.clock });
}

/**
 * The credential sets a mode's settings hold, first the one every payment uses, then the 자동결제 one when the mode
 * holds a second (Toss: the 자동결제 MID's key pair, issue 32). Each set has its own ledger at the gateway.
 */
export function credentialSetsOf(settings: GatewaySettings): TossKeyPair[] {
  // As before the refactor, the second set counts whenever its key is stored (providerFor answers for the provider chosen).
  return settings.toss_billing_secret_key_sealed ? ['payments', 'billing'] : ['payments'];
}

/** The mode's gateway under its second (자동결제) credential set, or null when the mode holds none. */
export function billingSetProviderFor(deps: Pick<AppDeps, 'config' | 'clock'>, settings: GatewaySettings): PaymentProvider | null {
  return credentialSetsOf(settings).includes('billing') ? providerFor(deps, settings, 'billing') : null;
}

/**
 * The gateway a payment was made on: its own provider and credential set, not the store's current choice (a refund or
 * a receipt goes where the money came from). `loadSettings` is called only for a provider that signs with the store's
 * credentials.
 */
export async function providerOfPayment(
  deps: Pick<AppDeps, 'config' | 'clock'>,
  payment: { mode: Mode; provider: PaymentProviderName; toss_key_pair: TossKeyPair },
  loadSettings: () => Promise<GatewaySettings>,
): Promise<PaymentProvider | null> {
  const raw = providerTraits(payment.provider).usesStoreCredentials ? await loadSettings() : null;
  return providerFor(
    deps,
    {
      mode: payment.mode,
      payment_provider: payment.provider,
      toss_secret_key_sealed: raw?.toss_secret_key_sealed ?? null,
      toss_billing_secret_key_sealed: raw?.toss_billing_secret_key_sealed ?? null,
      portone_store_id: raw?.portone_store_id ?? null,
      portone_api_secret_sealed: raw?.portone_api_secret_sealed ?? null,
    },
    payment.toss_key_pair,
  );
}
