import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db';
import { keptRowCount } from '../../db/row-counts';
import type { Mode } from '../../platform/tables';
import type { OrderRow } from '../../orders/model';
import type { OrdersTable } from '../../orders/tables';
import type { SubscriptionChargeRow, SubscriptionRow } from '../model';
import type { SubscriptionChargesTable } from '../tables';

/**
 * Renewal's queries: which subscriptions have a period end or a dunning retry due, and the charges that pay for a
 * period (`subscription_charges`, kinds `renewal` and `difference`: claimed, taken over, recorded, the order they
 * make, the licenses an ending charge expires, and the seller console's list of them). Each takes the executor, so
 * the renewal's transactions (holding the subscription's row lock) compose them.
 */

/**
 * Subscriptions with something due by their own clock (service clock + test clock offset): a period end reached
 * (renewal, or ending a scheduled cancel) or a dunning retry due. `onlyId` narrows it to one (test clock advance).
 */
export function dueSubscriptions(db: Db, now: Date, limit: number, onlyId?: string): Promise<Pick<SubscriptionRow, 'id'>[]> {
  const ownNow = sql<Date>`${now}::timestamptz + (test_clock_offset_ms * interval '1 millisecond')`;
  let q = db
    .selectFrom('subscriptions')
    .select('id')
    .where('status', '<>', 'ended')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'active'), eb('current_period_end', '<=', ownNow)]),
        eb.and([eb('status', '=', 'past_due'), eb('next_retry_at', '<=', ownNow)]),
      ]),
    );
  // A subscription whose charge awaits an answer (with the gateway, in its unknown-retry backoff, or left to the
  // seller) has nothing to do until that charge is settled; leaving it out keeps stuck ones from filling the batch.
  q = q.where(({ not, exists, selectFrom }) =>
    not(exists(selectFrom('subscription_charges as c').select('c.id').whereRef('c.subscription_id', '=', 'subscriptions.id').where('c.status', 'in', ['charging', 'needs_attention']))),
  );
  if (onlyId) q = q.where('id', '=', onlyId);
  return q.orderBy('current_period_end').limit(limit).execute();
}

/** A charge of the subscription whose outcome is not recorded yet (with the gateway, or awaiting the seller). */
export function chargeInFlight(db: Db, subscriptionId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('subscription_charges').select('id').where('subscription_id', '=', subscriptionId).where('status', 'in', ['charging', 'needs_attention']).executeTakeFirst();
}

/** Claims a charge: inserted only when no charge exists for the same subscription, kind, period and attempt. */
export async function claimCharge(trx: Db, row: Insertable<SubscriptionChargesTable>): Promise<SubscriptionChargeRow | undefined> {
  return trx
    .insertInto('subscription_charges')
    .values(row)
    .onConflict((oc) => oc.columns(['subscription_id', 'kind', 'period_start', 'attempt']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** How many charges of one kind a subscription has for one period start (finished ones: callers check in-flight first). */
export async function countSlotCharges(db: Db, subscriptionId: string, kind: 'renewal' | 'difference', periodStart: Date): Promise<number> {
  const r = await db
    .selectFrom('subscription_charges')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', kind)
    .where('period_start', '=', periodStart)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export function findCharge(db: Db, subscriptionId: string, kind: 'renewal' | 'difference', periodStart: Date, attempt: number): Promise<SubscriptionChargeRow | undefined> {
  return db
    .selectFrom('subscription_charges')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', kind)
    .where('period_start', '=', periodStart)
    .where('attempt', '=', attempt)
    .executeTakeFirst();
}

/**
 * Takes over a charge whose worker died with it at the gateway (still `charging`, lease run out). A conditional
 * update, so of two workers finding it only one gets it back.
 */
export function takeOverCharge(trx: Db, id: string, now: Date, leaseUntil: Date): Promise<SubscriptionChargeRow | undefined> {
  return trx
    .updateTable('subscription_charges')
    .set({ locked_until: leaseUntil, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'charging')
    .where('locked_until', '<=', now)
    .returningAll()
    .executeTakeFirst();
}

export function getCharge(db: Db, id: string): Promise<SubscriptionChargeRow> {
  return db.selectFrom('subscription_charges').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The subscription a charge belongs to (read before locking: the subscription is locked first, then the charge). */
export function chargeSubscriptionId(trx: Db, id: string): Promise<Pick<SubscriptionChargeRow, 'subscription_id'>> {
  return trx.selectFrom('subscription_charges').select('subscription_id').where('id', '=', id).executeTakeFirstOrThrow();
}

export function lockCharge(trx: Db, id: string): Promise<SubscriptionChargeRow | undefined> {
  return trx.selectFrom('subscription_charges').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function updateCharge(trx: Db, id: string, patch: Updateable<SubscriptionChargesTable>): Promise<void> {
  await trx.updateTable('subscription_charges').set(patch).where('id', '=', id).execute();
}

/** The paid difference charge that made `orderId` (an upgrade's difference order), if any. */
export function differenceChargeOfOrder(trx: Db, orderId: string): Promise<SubscriptionChargeRow | undefined> {
  return trx.selectFrom('subscription_charges').selectAll().where('order_id', '=', orderId).where('kind', '=', 'difference').where('status', '=', 'succeeded').executeTakeFirst();
}

/** Charges left `charging` past their lease (their process died mid-call), for the sweep that retries them. */
export function staleCharges(db: Db, now: Date, limit: number): Promise<Pick<SubscriptionChargeRow, 'id' | 'subscription_id'>[]> {
  return db.selectFrom('subscription_charges').select(['id', 'subscription_id']).where('status', '=', 'charging').where('locked_until', '<=', now).limit(limit).execute();
}

/** The order a succeeded charge pays for (a renewal or difference order). */
export function insertChargeOrder(trx: Db, row: Insertable<OrdersTable>): Promise<OrderRow> {
  return trx.insertInto('orders').values(row).returningAll().executeTakeFirstOrThrow();
}

/** An ended subscription's licenses expire `now`, unless revoked or already expired. */
export async function expireLicensesOnEnd(trx: Db, subscriptionId: string, now: Date): Promise<void> {
  await trx
    .updateTable('licenses')
    .set({ expires_at: now, updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '<>', 'revoked')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

// ---------- the console's view of charges ----------

export interface ChargeListFilter {
  storeId: string;
  mode?: Mode;
  status?: SubscriptionChargeRow['status'];
  subscriptionId?: string;
}

function chargeQuery(db: Db, f: ChargeListFilter) {
  let q = db.selectFrom('subscription_charges as c').innerJoin('subscriptions as s', 's.id', 'c.subscription_id').where('s.store_id', '=', f.storeId);
  if (f.mode) q = q.where('s.mode', '=', f.mode);
  if (f.status) q = q.where('c.status', '=', f.status);
  if (f.subscriptionId) q = q.where('c.subscription_id', '=', f.subscriptionId);
  return q;
}

export type ChargeWithMode = SubscriptionChargeRow & { mode: Mode; store_id: string };

export async function countCharges(db: Db, f: ChargeListFilter): Promise<number> {
  // The store's charges, of a mode or a status or both: the kept count (migrations 139, 140), not a join over them all.
  if (!f.subscriptionId) return keptRowCount(db, 'subscription_charges', f.storeId, f.mode, f.status ?? '');
  return Number((await chargeQuery(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first (the time-sortable id breaks ties). */
export function pageCharges(db: Db, f: ChargeListFilter, offset: number, limit: number): Promise<ChargeWithMode[]> {
  return chargeQuery(db, f).selectAll('c').select(['s.mode', 's.store_id']).orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').offset(offset).limit(limit).execute();
}

export function findChargeInStore(db: Db, storeId: string, id: string): Promise<ChargeWithMode | undefined> {
  return chargeQuery(db, { storeId }).selectAll('c').select(['s.mode', 's.store_id']).where('c.id', '=', id).executeTakeFirst();
}
