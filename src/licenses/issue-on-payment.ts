import type { Db } from '../db';
import type { AppDeps } from '../deps';

/**
 * Called by the checkout module inside the transaction that marks an order paid. Issues the order's license
 * by the product's license settings (service-issued: a key now; seller-issued: a pending license and a
 * `license.issue` job). Must only use `trx`, never `deps.db`. Filled in by the licenses issue.
 */
export async function issueLicensesForOrder(_trx: Db, _deps: Pick<AppDeps, 'clock' | 'config'>, _orderId: string): Promise<void> {}
