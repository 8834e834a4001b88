import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db';
import type { ProductRow } from '../../catalog/model';
import type { PlanConsentStatus, SubscriptionPlanConsentsTable } from '../tables';

export type PlanConsentRow = Selectable<SubscriptionPlanConsentsTable>;

export function insertPlanConsent(db: Db, row: Insertable<SubscriptionPlanConsentsTable>): Promise<PlanConsentRow> {
  return db.insertInto('subscription_plan_consents').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The subscription's open offer (at most one: a partial unique index), locked with the caller's transaction. */
export function pendingOffer(db: Db, subscriptionId: string, lock = false): Promise<PlanConsentRow | undefined> {
  let q = db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', '=', subscriptionId).where('status', '=', 'pending');
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

export function pendingOffersOf(db: Db, subscriptionIds: string[]): Promise<PlanConsentRow[]> {
  if (subscriptionIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', 'in', subscriptionIds).where('status', '=', 'pending').execute();
}

export function findPlanConsent(db: Db, subscriptionId: string, id: string): Promise<PlanConsentRow | undefined> {
  return db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', '=', subscriptionId).where('id', '=', id).executeTakeFirst();
}

export function resolvePlanConsent(db: Db, id: string, status: PlanConsentStatus, at: Date, consent?: unknown): Promise<PlanConsentRow | undefined> {
  return db
    .updateTable('subscription_plan_consents')
    .set({ status, resolved_at: status === 'pending' ? null : at, ...(consent !== undefined ? { consent } : {}) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Every consent record of a subscription, oldest first (the property test and the console read them). */
export function planConsentsOf(db: Db, subscriptionId: string): Promise<PlanConsentRow[]> {
  return db.selectFrom('subscription_plan_consents').selectAll().where('subscription_id', '=', subscriptionId).orderBy('created_at').orderBy('id').execute();
}

/** Open offers whose deadline has passed by their subscription's own clock. */
export function overdueOffers(db: Db, now: Date, limit: number, onlyId?: string): Promise<Array<{ id: string; subscription_id: string }>> {
  const ownNow = sql<Date>`${now}::timestamptz + (s.test_clock_offset_ms * interval '1 millisecond')`;
  let q = db
    .selectFrom('subscription_plan_consents as c')
    .innerJoin('subscriptions as s', 's.id', 'c.subscription_id')
    .select(['c.id', 'c.subscription_id'])
    .where('c.status', '=', 'pending')
    .where('c.deadline', '<=', ownNow);
  if (onlyId) q = q.where('c.subscription_id', '=', onlyId);
  return q.orderBy('c.deadline').limit(limit).execute();
}

/** The plans of the subscription's product (for a plan change). */
export function productPlans(db: Db, productId: string): Promise<Pick<ProductRow, 'plans'>> {
  return db.selectFrom('products').select(['plans']).where('id', '=', productId).executeTakeFirstOrThrow();
}

