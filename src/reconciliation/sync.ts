import type { AppDeps } from '../deps';
import type { Mode } from '../platform/tables';
import type { PaymentProviderName } from '../payments';
import { syncTossPayment } from '../gateway/sync';

/**
 * Applies what a lookup of one payment at Toss proves (the Toss webhook's path): a cancel made at Toss becomes a
 * refund here, a payment approved at Toss for a session still pending completes it. Reconciliation changes nothing
 * itself; for each difference it finds it asks this function, which looks the payment up and decides.
 */
/** `provider`: the gateway whose ledger showed the difference (the mode's current one when absent). */
export type SyncTossPayment = (p: { storeId: string; mode: Mode; paymentKey?: string; orderId?: string; provider?: PaymentProviderName }) => Promise<unknown>;

/** Reports only (tests that check the comparison alone). */
export const noSync: SyncTossPayment = async () => undefined;

/**
 * The sync function the app's reconciliation runs use (job, console, dashboard, CLI): the Toss webhook's own path,
 * so what a reconciliation changes is exactly what a lookup at Toss proves.
 */
export function paymentSyncFor(deps: Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>): SyncTossPayment {
  return (p) => syncTossPayment(deps, p);
}
