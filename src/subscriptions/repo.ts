import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { ProductRow } from '../catalog/model';
import type { OrderRow } from '../orders/model';
import type { OrdersTable } from '../orders/tables';
import type { SubscriptionChargeRow, SubscriptionRow } from './model';
import type { SubscriptionChargesTable, SubscriptionsTable, SubscriptionStatus } from './tables';
import type { PortalCardUpdatesTable, PortalSessionsTable } from './cancel-tables';

/** The API key's range: store, mode and (when the key is limited) products. */
export interface SubscriptionFilter {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

export interface SubscriptionListFilter {
  status?: SubscriptionStatus;
  buyerEmail?: string;
  productId?: string;
}

/** Locks one subscription row for the rest of the transaction (`select … for update`); undefined when absent. */
export function lockSubscription(trx: Db, id: string): Promise<SubscriptionRow | undefined> {
  return trx.selectFrom('subscriptions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Subscriptions of a store and mode that still hold a billing key (to find the one a gateway says it deleted). */
export function subscriptionsHoldingBillingKey(db: Db, storeId: string, mode: Mode): Promise<Pick<SubscriptionRow, 'id' | 'billing_key_sealed'>[]> {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'billing_key_sealed'])
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('status', '<>', 'ended')
    .where('billing_key_sealed', 'is not', null)
    .execute();
}

export function getSubscription(db: Db, id: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A subscription inside the key's range, or undefined (answered as SUBSCRIPTION_NOT_FOUND). */
export function findSubscription(db: Db, f: SubscriptionFilter, id: string): Promise<SubscriptionRow | undefined> {
  let q = db.selectFrom('subscriptions').selectAll().where('id', '=', id).where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q.executeTakeFirst();
}

function listQuery(db: Db, f: SubscriptionFilter, l: SubscriptionListFilter) {
  let q = db.selectFrom('subscriptions').where('store_id', '=', f.storeId).where('mode', '=', f.mode);
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  if (l.status) q = q.where('status', '=', l.status);
  if (l.productId) q = q.where('product_id', '=', l.productId);
  if (l.buyerEmail) q = q.where(sql<string>`lower(buyer_email)`, '=', l.buyerEmail.toLowerCase());
  return q;
}

export async function countSubscriptions(db: Db, f: SubscriptionFilter, l: SubscriptionListFilter): Promise<number> {
  return Number((await listQuery(db, f, l).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first by start time (the spec's order for subscriptions); the time-sortable id breaks ties. */
export function pageSubscriptions(db: Db, f: SubscriptionFilter, l: SubscriptionListFilter, offset: number, limit: number): Promise<SubscriptionRow[]> {
  return listQuery(db, f, l).selectAll().orderBy('started_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export async function insertSubscription(trx: Db, row: Insertable<SubscriptionsTable>): Promise<SubscriptionRow> {
  return trx.insertInto('subscriptions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateSubscription(trx: Db, id: string, patch: Updateable<SubscriptionsTable>): Promise<SubscriptionRow> {
  return trx.updateTable('subscriptions').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Forgets a billing key deleted at the gateway, unless another key has replaced it meanwhile. */
export async function clearBillingKey(db: Db, id: string, sealed: string, now: Date): Promise<void> {
  await db.updateTable('subscriptions').set({ billing_key_sealed: null, updated_at: now }).where('id', '=', id).where('billing_key_sealed', '=', sealed).execute();
}

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

/** The immediate cancellation in progress (`refunding`, whatever its lease) of a subscription, if any. */
export function openCancellation(db: Db, subscriptionId: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('subscription_cancellations').select('id').where('subscription_id', '=', subscriptionId).where('status', '=', 'refunding').executeTakeFirst();
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

/** The plans of the subscription's product (for a plan change). */
export function productPlans(db: Db, productId: string): Promise<Pick<ProductRow, 'plans'>> {
  return db.selectFrom('products').select(['plans']).where('id', '=', productId).executeTakeFirstOrThrow();
}

// ---------- portal sessions (migration 009) ----------

/** The buyer's newest active or past-due subscription in the key's range (the portal link by email). */
export function latestLiveSubscriptionOfBuyer(db: Db, f: SubscriptionFilter, email: string): Promise<SubscriptionRow | undefined> {
  let q = db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', f.storeId)
    .where('mode', '=', f.mode)
    .where('status', 'in', ['active', 'past_due'])
    .where((eb) => eb(eb.fn('lower', ['buyer_email']), '=', email.toLowerCase()));
  if (f.productIds) q = q.where('product_id', 'in', f.productIds.length ? f.productIds : ['']);
  return q.orderBy('started_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
}

export function insertPortalSession(db: Db, row: Insertable<PortalSessionsTable>): Promise<Selectable<PortalSessionsTable>> {
  return db.insertInto('portal_sessions').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findPortalSessionByTokenHash(db: Db, tokenHash: string): Promise<Selectable<PortalSessionsTable> | undefined> {
  return db.selectFrom('portal_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

// ---------- portal card registrations (migration 010) ----------

export async function insertCardUpdate(db: Db, row: Insertable<PortalCardUpdatesTable>): Promise<void> {
  await db.insertInto('portal_card_updates').values(row).execute();
}

/** The open, unexpired card registration of this portal session with this state hash (read only). */
export function findOpenCardUpdate(db: Db, portalSessionId: string, stateHash: string, now: Date) {
  return db
    .selectFrom('portal_card_updates')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .where('portal_session_id', '=', portalSessionId)
    .where('status', '=', 'open')
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Takes (uses up) an open card registration: a conditional update, so of two redirects carrying the same state only
 * one gets the row back. Returns the subscription it was opened for, or undefined (unknown, foreign, used, expired).
 */
export function takeCardUpdate(db: Db, portalSessionId: string, stateHash: string, status: 'used' | 'failed', now: Date) {
  return db
    .updateTable('portal_card_updates')
    .set({ status, used_at: now })
    .where('state_hash', '=', stateHash)
    .where('portal_session_id', '=', portalSessionId)
    .where('status', '=', 'open')
    .where('expires_at', '>', now)
    .returning(['id', 'subscription_id'])
    .executeTakeFirst();
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
  return Number((await chargeQuery(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first (the time-sortable id breaks ties). */
export function pageCharges(db: Db, f: ChargeListFilter, offset: number, limit: number): Promise<ChargeWithMode[]> {
  return chargeQuery(db, f).selectAll('c').select(['s.mode', 's.store_id']).orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').offset(offset).limit(limit).execute();
}

export function findChargeInStore(db: Db, storeId: string, id: string): Promise<ChargeWithMode | undefined> {
  return chargeQuery(db, { storeId }).selectAll('c').select(['s.mode', 's.store_id']).where('c.id', '=', id).executeTakeFirst();
}

/** A subscription's test clock offset (0 for live ones, unmoved clocks and unknown ids). */
export async function testClockOffset(db: Db, subscriptionId: string): Promise<number> {
  const row = await db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', subscriptionId).executeTakeFirst();
  return Number(row?.test_clock_offset_ms ?? 0);
}

/** Marks the card as reported deleted (a BILLING_DELETED webhook), if it still holds that sealed key. */
export async function markCardReportedDeleted(db: Db, id: string, sealed: string, now: Date): Promise<boolean> {
  const r = await db
    .updateTable('subscriptions')
    .set({ card_reported_deleted_at: now })
    .where('id', '=', id)
    .where('billing_key_sealed', '=', sealed)
    .where('status', '<>', 'ended')
    .where('card_reported_deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** A charge on this sealed key succeeded: a BILLING_DELETED report about it was false. */
export async function clearCardReportedDeleted(db: Db, id: string, sealed: string): Promise<void> {
  await db.updateTable('subscriptions').set({ card_reported_deleted_at: null }).where('id', '=', id).where('billing_key_sealed', '=', sealed).where('card_reported_deleted_at', 'is not', null).execute();
}

/** Whether a subscription of the product in this store and mode had a trial started by this e-mail (lower-cased) or card fingerprint. */
export async function trialStartedBy(db: Db, q: { storeId: string; mode: Mode; productId: string; email: string | null; cardFingerprint: string | null }): Promise<boolean> {
  if (!q.email && !q.cardFingerprint) return false;
  const row = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('store_id', '=', q.storeId)
    .where('mode', '=', q.mode)
    .where('product_id', '=', q.productId)
    .where('trial_ends_at', 'is not', null)
    .where((eb) => {
      const ors = [];
      if (q.email) ors.push(eb(sql<string>`lower(buyer_email)`, '=', q.email));
      if (q.cardFingerprint) ors.push(eb('trial_card_fingerprint', '=', q.cardFingerprint));
      return eb.or(ors);
    })
    .limit(1)
    .executeTakeFirst();
  return !!row;
}
