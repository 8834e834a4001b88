import type { Db } from '../db';
import type { Mode } from '../platform/tables';

// store_toss_state queries: when a store's Toss keys were last accepted by Toss and when Toss's webhooks arrive.

export interface TossState {
  keysVerifiedAt: Date | null;
  firstWebhookAt: Date | null;
  lastWebhookAt: Date | null;
}

export async function findTossState(db: Db, storeId: string, mode: Mode): Promise<TossState> {
  const row = await db.selectFrom('store_toss_state').selectAll().where('store_id', '=', storeId).where('mode', '=', mode).executeTakeFirst();
  return { keysVerifiedAt: row?.keys_verified_at ?? null, firstWebhookAt: row?.first_webhook_at ?? null, lastWebhookAt: row?.last_webhook_at ?? null };
}

/**
 * Records that Toss accepted the store's keys for `mode` at `at` (after an authenticated call succeeded): the first
 * pair's, or with `pair` = 'billing' the 자동결제 pair's (migration 068).
 */
export async function markTossKeysVerified(db: Db, storeId: string, mode: Mode, at: Date, pair: 'payments' | 'billing' = 'payments'): Promise<void> {
  const column = pair === 'billing' ? 'billing_keys_verified_at' : 'keys_verified_at';
  await db
    .insertInto('store_toss_state')
    .values({ store_id: storeId, mode, keys_verified_at: null, first_webhook_at: null, last_webhook_at: null, [column]: at })
    .onConflict((oc) => oc.columns(['store_id', 'mode']).doUpdateSet({ [column]: at }))
    .execute();
}

/** Records a webhook from Toss for the store and mode; the first one stays as first_webhook_at. */
export async function markTossWebhookSeen(db: Db, storeId: string, mode: Mode, at: Date): Promise<void> {
  await db
    .insertInto('store_toss_state')
    .values({ store_id: storeId, mode, keys_verified_at: null, first_webhook_at: at, last_webhook_at: at })
    // The row may exist already without a webhook (keys verified first): the first arrival still fills first_webhook_at.
    .onConflict((oc) =>
      oc.columns(['store_id', 'mode']).doUpdateSet((eb) => ({
        first_webhook_at: eb.fn.coalesce('store_toss_state.first_webhook_at', eb.ref('excluded.first_webhook_at')),
        last_webhook_at: at,
      })),
    )
    .execute();
}

/**
 * Spends one of the store and mode's Toss lookups for the minute starting at `windowStart` (a fixed window on the
 * service clock). Returns false when `limit` are already spent in that window: the caller waits for the next one.
 */
export async function spendTossLookup(db: Db, storeId: string, mode: Mode, windowStart: Date, limit: number): Promise<boolean> {
  const row = await db
    .insertInto('store_toss_state')
    .values({ store_id: storeId, mode, keys_verified_at: null, first_webhook_at: null, last_webhook_at: null, lookup_window_start: windowStart, lookups_used: 1 })
    .onConflict((oc) =>
      oc
        .columns(['store_id', 'mode'])
        .doUpdateSet((eb) => ({
          lookups_used: eb
            .case()
            .when('store_toss_state.lookup_window_start', '=', windowStart)
            .then(eb('store_toss_state.lookups_used', '+', 1))
            .else(1)
            .end(),
          lookup_window_start: windowStart,
        }))
        .where((eb) => eb.or([eb('store_toss_state.lookup_window_start', 'is', null), eb('store_toss_state.lookup_window_start', '<>', windowStart), eb('store_toss_state.lookups_used', '<', limit)])),
    )
    .returning('lookups_used')
    .executeTakeFirst();
  return row !== undefined;
}
