import { sql, type Insertable, type Updateable } from 'kysely';
import { keptRowCount } from '../db/row-counts';
import type { Db } from '../db';
import type { Mode } from '../platform/tables';
import type { SubscriptionRow } from './model';
import type { SubscriptionsTable, SubscriptionStatus } from './tables';

/**
 * The subscription row itself (`subscriptions`), shared by every room: find, list, lock, insert and update it, its
 * billing key and card state, its test clock offset and the trial-once check. Each room's own tables have their
 * queries in the room's repo (renewal/repo.ts: charges; cancel/repo.ts: cancellations; portal/repo.ts: portal
 * sessions; plan-change/repo.ts, price-change/repo.ts). Each takes the executor, so transactions compose them.
 */

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
  if (!f.productIds && !l.buyerEmail && !l.productId) return keptRowCount(db, 'subscriptions', f.storeId, f.mode, l.status ?? '');
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

/**
 * Whether a subscription of the product in this store and mode had a trial started by this e-mail box, phone number
 * (both normalised keys, trials/identity.ts) or card fingerprint: one query, each term on its own partial index.
 */
export async function trialStartedBy(db: Db, q: { storeId: string; mode: Mode; productId: string; emailKey: string | null; phoneKey: string | null; cardFingerprint: string | null }): Promise<boolean> {
  if (!q.emailKey && !q.phoneKey && !q.cardFingerprint) return false;
  const row = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('store_id', '=', q.storeId)
    .where('mode', '=', q.mode)
    .where('product_id', '=', q.productId)
    .where('trial_ends_at', 'is not', null)
    .where((eb) => {
      const ors = [];
      if (q.emailKey) ors.push(eb('trial_email_key', '=', q.emailKey));
      if (q.phoneKey) ors.push(eb('trial_phone_key', '=', q.phoneKey));
      if (q.cardFingerprint) ors.push(eb('trial_card_fingerprint', '=', q.cardFingerprint));
      return eb.or(ors);
    })
    .limit(1)
    .executeTakeFirst();
  return !!row;
}
