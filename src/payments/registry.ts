/**
 * What the rest of the service may know about each payment provider, by name, without building one (an order or a
 * settings row only records the name). Every difference between the providers that code outside payments/ acts on is
 * a trait here or a helper below, so adding a provider means adding its adapter, its entry here, its settings form and
 * its return page; nothing else branches on a provider's name (test/payments/provider-neutral.test.ts keeps it so).
 */
import type { Mode } from '../platform/tables';
import type { ConfirmResult, PaymentProviderName } from './provider';

export type { PaymentProviderName } from './provider';

export interface ProviderTraits {
  readonly name: PaymentProviderName;
  /** What the dashboard calls it (an order's 결제대행), in Korean and English. */
  readonly label: { readonly ko: string; readonly en: string };
  /** Test mode only: a live store can never take a payment through it (the simulator). */
  readonly testOnly: boolean;
  /**
   * An order is paid when the gateway approved it (its own approval time, e.g. Toss's Payment.approvedAt), not when we
   * recorded it: recorded a moment later, after midnight KST, it would otherwise fall on another day than in the
   * gateway's ledger and its reconciliation (issue 32). False: our clock (the simulator).
   */
  readonly approvalTimeIsGateway: boolean;
  /** Where its transaction list is read from (see PaymentProvider.ledger). */
  readonly ledger: 'gateway' | 'process';
  /**
   * A partial refund first reads the payment's cancelable balance at the gateway and is refused when it is not what
   * our books say (a cancel made in the gateway's own admin would otherwise refund the buyer twice).
   */
  readonly checksBalanceBeforePartialRefund: boolean;
  /** It signs calls with the store's sealed credentials from the mode's settings (the simulator needs none). */
  readonly usesStoreCredentials: boolean;
  /**
   * A mode may hold a second credential set for 자동결제 (Toss: the 자동결제 MID's key pair, issue 32); a payment
   * records which set it was made with, and a lookup unknown under the first is asked under the second too.
   */
  readonly hasBillingCredentials: boolean;
  /** It notifies us of payment changes (webhooks the gateway/ room syncs through a lookup). */
  readonly notifies: boolean;
  /** The daily reconciliation job reads its ledger for every store mode on it with credentials set. */
  readonly reconciledDaily: boolean;
}

const TRAITS: Record<PaymentProviderName, ProviderTraits> = {
  simulator: {
    name: 'simulator',
    label: { ko: '테스트 결제 (시뮬레이터)', en: 'Test payments (simulator)' },
    testOnly: true,
    approvalTimeIsGateway: false,
    ledger: 'process',
    checksBalanceBeforePartialRefund: false,
    usesStoreCredentials: false,
    hasBillingCredentials: false,
    notifies: false,
    reconciledDaily: false,
  },
  toss: {
    name: 'toss',
    label: { ko: '토스페이먼츠', en: 'Toss Payments' },
    testOnly: false,
    approvalTimeIsGateway: true,
    ledger: 'gateway',
    checksBalanceBeforePartialRefund: true,
    usesStoreCredentials: true,
    hasBillingCredentials: true,
    notifies: true,
    reconciledDaily: true,
  },
  // PortOne V2 in front of the seller's own PG contract (portone.ts): approval time is PortOne's Payment.paidAt, its
  // ledger the payment-event cursor, a partial refund cancels against PortOne's cancellable amount, one credential set
  // per mode (store id + V2 API secret), webhooks verified with the mode's webhook secret (portone-webhook.ts).
  portone: {
    name: 'portone',
    label: { ko: '포트원', en: 'PortOne' },
    testOnly: false,
    approvalTimeIsGateway: true,
    ledger: 'gateway',
    checksBalanceBeforePartialRefund: true,
    usesStoreCredentials: true,
    hasBillingCredentials: false,
    notifies: true,
    // Its ledger is PortOne's payment events (listTransactions over /payment-events-by-cursor; test/reconciliation/portone.test.ts).
    reconciledDaily: true,
  },
};

/** Every provider a store can choose, in the order the API documents them. */
export const PROVIDER_NAMES: readonly PaymentProviderName[] = ['simulator', 'toss', 'portone'];

export function providerTraits(name: PaymentProviderName): ProviderTraits {
  return TRAITS[name];
}

/** The providers with a trait set, e.g. `providersWith('notifies')`. */
export function providersWith(trait: 'notifies' | 'reconciledDaily' | 'usesStoreCredentials'): PaymentProviderName[] {
  return PROVIDER_NAMES.filter((n) => TRAITS[n][trait]);
}

/**
 * The provider a mode's settings name, or the one a mode without a choice would use: the simulator in test mode, the
 * live gateway in live mode (what a charge settled by hand is recorded as).
 */
export function providerNameOrDefault(name: PaymentProviderName | null, mode: Mode): PaymentProviderName {
  return name ?? (mode === 'test' ? 'simulator' : 'toss');
}

/**
 * When an order paid with `result` counts as paid: the gateway's approval time for a provider whose approval time is
 * the gateway's (and an amount it actually charged), else `now` (the simulator, a 0-won order).
 */
export function paidAtOf(provider: PaymentProviderName, amount: number, result: Pick<ConfirmResult, 'approvedAt'>, now: Date): Date {
  return TRAITS[provider].approvalTimeIsGateway && amount > 0 ? result.approvedAt : now;
}

/** A mode's settings as far as taking a payment goes: which provider and which of its credentials are set. */
export interface CredentialsPresence {
  mode: Mode;
  paymentProvider: PaymentProviderName | null;
  tossClientKey: string | null;
  tossSecretKeySet: boolean;
  /** PortOne: the store id and whether the V2 API secret is stored (absent: none). */
  portoneStoreId?: string | null;
  portoneApiSecretSet?: boolean;
}

/**
 * Whether a mode can take a payment with its settings: the simulator in test mode only; Toss with both keys of its
 * first pair (client key for the payment window, secret key for the server's calls); PortOne with its store id and API
 * secret (the channel key of each method is checked when the buyer picks it).
 */
export function checkoutConfigured(s: CredentialsPresence): boolean {
  if (s.paymentProvider === null) return false;
  if (TRAITS[s.paymentProvider].testOnly) return s.mode === 'test';
  if (s.paymentProvider === 'portone') return !!s.portoneStoreId && s.portoneApiSecretSet === true;
  return s.tossClientKey !== null && s.tossClientKey !== '' && s.tossSecretKeySet;
}
