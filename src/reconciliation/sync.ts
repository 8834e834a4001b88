import type { AppDeps } from '../deps';
import type { Mode } from '../platform/tables';

/**
 * Applies what a lookup of one payment at Toss proves (the Toss webhook's path): a cancel made at Toss becomes a
 * refund here, a payment approved at Toss for a session still pending completes it. Reconciliation changes nothing
 * itself; for each difference it finds it asks this function, which looks the payment up and decides.
 */
export type SyncTossPayment = (p: { storeId: string; mode: Mode; paymentKey?: string; orderId?: string }) => Promise<unknown>;

/** Until the webhook work is merged: reconciliation only reports. */
export const noSync: SyncTossPayment = async () => undefined;

/**
 * The sync function the app's reconciliation runs use (job, console, dashboard, CLI).
 * MERGE POINT: once `syncTossPayment(deps, { storeId, mode, paymentKey?, orderId? })` (Toss webhooks) is on the
 * branch, return `(p) => syncTossPayment(deps, p)` here.
 */
export function paymentSyncFor(_deps: Pick<AppDeps, 'db' | 'clock' | 'config'>): SyncTossPayment {
  return noSync;
}
