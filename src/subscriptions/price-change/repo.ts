// Queries of plan price changes (migration 021). Every function takes the executor (db or a transaction).
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db';
import type { Mode } from '../../platform/tables';
import type { SubscriptionRow } from '../model';
import type { BillingInterval, PlanPriceChangesTable, PriceChangeOutcome, SubscriptionPriceChangesTable } from '../tables';

export type PriceChangeRow = Selectable<PlanPriceChangesTable>;
export type PriceDecisionRow = Selectable<SubscriptionPriceChangesTable>;

export async function insertPriceChange(trx: Db, row: Insertable<PlanPriceChangesTable>): Promise<PriceChangeRow> {
  return trx.insertInto('plan_price_changes').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertDecision(trx: Db, row: Insertable<SubscriptionPriceChangesTable>): Promise<void> {
  await trx.insertInto('subscription_price_changes').values(row).onConflict((oc) => oc.columns(['subscription_id', 'price_change_id']).doNothing()).execute();
}

/** Changes of a plan not canceled whose effective date is after `now` (at most one, by the scheduling rule). */
export function pendingChangeOfPlan(db: Db, productId: string, planId: string, now: Date): Promise<PriceChangeRow | undefined> {
  return db
    .selectFrom('plan_price_changes')
    .selectAll()
    .where('product_id', '=', productId)
    .where('plan_id', '=', planId)
    .where('canceled_at', 'is', null)
    .where('effective_at', '>', now)
    .executeTakeFirst();
}

/** The newest change of a plan that is not canceled (what a subscriber who has not been told yet is told). */
export function latestChangeOfPlan(db: Db, productId: string, planId: string): Promise<PriceChangeRow | undefined> {
  return db
    .selectFrom('plan_price_changes')
    .selectAll()
    .where('product_id', '=', productId)
    .where('plan_id', '=', planId)
    .where('canceled_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Subscriptions a change of this plan concerns: on the plan, not ended, not cancelled at period end. Locked, in id order. */
export function lockSubscribersOfPlan(trx: Db, storeId: string, mode: Mode, productId: string, planId: string, intervals: BillingInterval[]): Promise<SubscriptionRow[]> {
  return trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('mode', '=', mode)
    .where('product_id', '=', productId)
    .where('plan_id', '=', planId)
    .where('billing_interval', 'in', intervals)
    .where('status', 'in', ['active', 'past_due'])
    .where('cancel_at_period_end', '=', false)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function findDecision(db: Db, subscriptionId: string, priceChangeId: string): Promise<PriceDecisionRow | undefined> {
  return db.selectFrom('subscription_price_changes').selectAll().where('subscription_id', '=', subscriptionId).where('price_change_id', '=', priceChangeId).executeTakeFirst();
}

/** A subscription's open decisions (newest first), with their change's plan and effective date. */
export function openDecisions(db: Db, subscriptionId: string) {
  return db
    .selectFrom('subscription_price_changes as d')
    .innerJoin('plan_price_changes as c', 'c.id', 'd.price_change_id')
    .selectAll('d')
    .select(['c.plan_id', 'c.effective_at', 'c.monthly_price', 'c.yearly_price'])
    .where('d.subscription_id', '=', subscriptionId)
    .where('d.outcome', 'is', null)
    .where('c.canceled_at', 'is', null)
    .orderBy('d.applies_from', 'desc')
    .orderBy('d.price_change_id', 'desc')
    .execute();
}
export type OpenDecision = Awaited<ReturnType<typeof openDecisions>>[number];

/** Open decisions of several subscriptions (the portal). */
export function openDecisionsOf(db: Db, subscriptionIds: string[]) {
  return db
    .selectFrom('subscription_price_changes as d')
    .innerJoin('plan_price_changes as c', 'c.id', 'd.price_change_id')
    .selectAll('d')
    .select(['c.plan_id', 'c.effective_at'])
    .where('d.subscription_id', 'in', subscriptionIds.length ? subscriptionIds : [''])
    .where('d.outcome', 'is', null)
    .where('c.canceled_at', 'is', null)
    .orderBy('d.applies_from', 'desc')
    .execute();
}

export async function acceptDecision(trx: Db, subscriptionId: string, priceChangeId: string, at: Date): Promise<void> {
  await trx.updateTable('subscription_price_changes').set({ accepted_at: at, declined_at: null }).where('subscription_id', '=', subscriptionId).where('price_change_id', '=', priceChangeId).execute();
}

/** The buyer's refusal of an increase (migration 080): any earlier agreement is withdrawn with it. */
export async function declineDecision(trx: Db, subscriptionId: string, priceChangeId: string, at: Date): Promise<void> {
  await trx.updateTable('subscription_price_changes').set({ accepted_at: null, declined_at: at }).where('subscription_id', '=', subscriptionId).where('price_change_id', '=', priceChangeId).execute();
}

export async function resolveDecisions(trx: Db, subscriptionId: string, priceChangeIds: string[], outcome: PriceChangeOutcome, at: Date): Promise<void> {
  if (priceChangeIds.length === 0) return;
  await trx
    .updateTable('subscription_price_changes')
    .set({ outcome, resolved_at: at })
    .where('subscription_id', '=', subscriptionId)
    .where('price_change_id', 'in', priceChangeIds)
    .where('outcome', 'is', null)
    .execute();
}

export interface PriceChangeListFilter {
  storeId: string;
  mode?: Mode;
  productId?: string;
  id?: string;
}

function listQuery(db: Db, f: PriceChangeListFilter) {
  let q = db.selectFrom('plan_price_changes as c').where('c.store_id', '=', f.storeId);
  if (f.mode) q = q.where('c.mode', '=', f.mode);
  if (f.productId) q = q.where('c.product_id', '=', f.productId);
  if (f.id) q = q.where('c.id', '=', f.id);
  return q;
}

export async function countPriceChanges(db: Db, f: PriceChangeListFilter): Promise<number> {
  return Number((await listQuery(db, f).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
}

/** Newest first, each with its subscribers' tally: told, agreed, renewed at the new price, ended for want of consent. */
export function pagePriceChanges(db: Db, f: PriceChangeListFilter, offset: number, limit: number) {
  return listQuery(db, f)
    .selectAll('c')
    .select([
      sql<number>`(select count(*) from subscription_price_changes d where d.price_change_id = c.id)`.as('notified'),
      sql<number>`(select count(*) from subscription_price_changes d where d.price_change_id = c.id and d.new_amount > d.current_amount)`.as('consent_required'),
      sql<number>`(select count(*) from subscription_price_changes d where d.price_change_id = c.id and d.accepted_at is not null)`.as('accepted'),
      sql<number>`(select count(*) from subscription_price_changes d where d.price_change_id = c.id and d.outcome = 'applied')`.as('applied'),
      sql<number>`(select count(*) from subscription_price_changes d where d.price_change_id = c.id and d.outcome = 'ended')`.as('ended'),
    ])
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}
export type PriceChangeWithTally = Awaited<ReturnType<typeof pagePriceChanges>>[number];

export function findPriceChangeInStore(db: Db, storeId: string, id: string): Promise<PriceChangeWithTally | undefined> {
  return pagePriceChanges(db, { storeId, id }, 0, 1).then((rows) => rows[0]);
}

export function lockPriceChange(trx: Db, storeId: string, id: string): Promise<PriceChangeRow | undefined> {
  return trx.selectFrom('plan_price_changes').selectAll().where('id', '=', id).where('store_id', '=', storeId).forUpdate().executeTakeFirst();
}

export async function markPriceChangeCanceled(trx: Db, id: string, at: Date): Promise<void> {
  await trx.updateTable('plan_price_changes').set({ canceled_at: at }).where('id', '=', id).execute();
}

/** Subscriptions still waiting on a change (no outcome yet), in id order (the lock order). */
export async function openSubscribersOf(db: Db, priceChangeId: string): Promise<string[]> {
  const rows = await db.selectFrom('subscription_price_changes').select('subscription_id').where('price_change_id', '=', priceChangeId).where('outcome', 'is', null).orderBy('subscription_id').execute();
  return rows.map((r) => r.subscription_id);
}
