import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import type { Clock } from '../../platform/clock';
import { ApiError, validationError, type FieldError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { listPage, type PageParams } from '../../platform/http/pagination';
import type { Page } from '../../platform/http/schemas';
import { MESSAGES } from '../../platform/messages';
import { lockProduct } from '../../catalog/repo';
import { periodEnd } from '../../checkout/model';
import { jsonb } from '../../db';
import { writeSubscriptionUpdated } from '../events';
import { subscriptionNow, type SubscriptionRow } from '../model';
import * as subsRepo from '../repo';
import * as repo from './repo';
import type { PriceChangeView, SchedulePriceChangeInput } from './schemas';
import type { BillingInterval, ChargeTarget, ScheduledPrice } from '../tables';

/**
 * Plan price changes for existing subscribers (전자상거래법 시행령 as amended 2025-02-14: a recurring charge may go up
 * only after notice at least 30 days ahead and the buyer's consent). The rules, in one place:
 * - A seller schedules a new price per interval for one plan, effective at least 30 days after now (store time: the
 *   seller's action, never a test clock). A plan has at most one change not yet in effect (PRICE_CHANGE_PENDING).
 * - In the same transaction every subscriber concerned (same plan and interval, active or past due, not cancelled at
 *   period end, whose amount differs from the new one) is recorded and told: `subscription.updated` with
 *   `change.kind: price_change_scheduled` (the mail outbox turns it into the notice mail).
 * - An increase needs the buyer's consent (the portal's button, `price_change_accepted`). At the first renewal on or
 *   after the effective date (the subscription's own clock) an agreed subscriber is charged the new price and its sold
 *   terms carry the new list price from then on; one who has not agreed is not charged: the subscription ends at its
 *   period end with `endReason: price_change_declined`.
 * - A decrease needs no consent: it applies at that renewal by itself.
 * - A subscription that starts (or is first seen by a renewal) after the change was scheduled, still paying the old
 *   amount, is told then, and the change applies to it from max(effective date, told + 30 days): it too gets its
 *   30 days. The product's list price for new buyers is the product's (PATCH /admin/v1/products/:id): a new buyer
 *   agrees to the price the payment page shows.
 * - Cancelled (at period end) and ended subscriptions are left alone.
 */

export const NOTICE_DAYS = 30;
const DAY_MS = 86_400_000;
const NOTICE_MS = NOTICE_DAYS * DAY_MS;

type Deps = Pick<AppDeps, 'db' | 'clock'>;

const newAmountOf = (c: Pick<repo.PriceChangeRow, 'monthly_price' | 'yearly_price'>, interval: BillingInterval): number | null => {
  const v = interval === 'monthly' ? c.monthly_price : c.yearly_price;
  return v === null ? null : Number(v);
};

/** The first renewal of `sub` on or after `from` (its period ends, stepped by its interval). */
export function firstRenewalFrom(sub: Pick<SubscriptionRow, 'current_period_end' | 'billing_interval'>, from: Date): Date {
  let d = sub.current_period_end;
  for (let i = 0; d < from && i < 1_000; i++) d = periodEnd(d, sub.billing_interval);
  return d;
}

export function priceChangeView(c: repo.PriceChangeWithTally, now: Date): PriceChangeView {
  return {
    id: c.id,
    mode: c.mode,
    productId: c.product_id,
    planId: c.plan_id,
    monthlyPrice: c.monthly_price === null ? null : Number(c.monthly_price),
    yearlyPrice: c.yearly_price === null ? null : Number(c.yearly_price),
    currency: 'KRW',
    effectiveAt: c.effective_at.toISOString(),
    status: c.canceled_at ? 'canceled' : c.effective_at > now ? 'scheduled' : 'in_effect',
    subscribers: {
      notified: Number(c.notified),
      consentRequired: Number(c.consent_required),
      accepted: Number(c.accepted),
      applied: Number(c.applied),
      ended: Number(c.ended),
    },
    createdAt: c.created_at.toISOString(),
    canceledAt: c.canceled_at ? c.canceled_at.toISOString() : null,
  };
}

/**
 * Records that `sub` is told about `change` and writes its `price_change_scheduled` event (same transaction). Nothing
 * when the change does not touch its interval or its amount is already the new one. `own` is the subscription's time.
 */
async function notify(trx: Db, clock: Clock, sub: SubscriptionRow, change: repo.PriceChangeRow, own: Date): Promise<boolean> {
  const newAmount = newAmountOf(change, sub.billing_interval);
  const currentAmount = Number(sub.amount);
  if (newAmount === null || newAmount === currentAmount) return false;
  const appliesFrom = new Date(Math.max(change.effective_at.getTime(), own.getTime() + NOTICE_MS));
  const decideBy = firstRenewalFrom(sub, appliesFrom);
  // A buyer who paid after the change was scheduled was shown the new price on the payment page and agreed to it there.
  const agreedAtCheckout = sub.recurring_consent?.priceChangeId === change.id ? new Date(sub.recurring_consent.consentedAt) : null;
  await repo.insertDecision(trx, {
    subscription_id: sub.id,
    price_change_id: change.id,
    billing_interval: sub.billing_interval,
    current_amount: currentAmount,
    new_amount: newAmount,
    applies_from: appliesFrom,
    decide_by: decideBy,
    notified_at: own,
    accepted_at: newAmount > currentAmount ? agreedAtCheckout : null,
    outcome: null,
    resolved_at: null,
    created_at: clock.now(),
  });
  // Kept on the subscription too: what its renewal at `decideBy` charges, read by the API and the receipt.
  const acceptedAt = agreedAtCheckout && newAmount > currentAmount ? agreedAtCheckout.toISOString() : null;
  const scheduled: ScheduledPrice = {
    priceChangeId: change.id,
    planId: change.plan_id,
    billingInterval: sub.billing_interval,
    currentAmount,
    amount: newAmount,
    effectiveAt: decideBy.toISOString(),
    consentRequired: newAmount > currentAmount,
    acceptedAt,
  };
  const told = await subsRepo.updateSubscription(trx, sub.id, { price_change: jsonb(scheduled) });
  await writeSubscriptionUpdated(trx, clock, told, {
    kind: 'price_change_scheduled',
    priceChangeId: change.id,
    planId: change.plan_id,
    billingInterval: sub.billing_interval,
    currentAmount,
    newAmount,
    effectiveAt: appliesFrom.toISOString(),
    decideBy: decideBy.toISOString(),
    consentRequired: newAmount > currentAmount,
    ...(agreedAtCheckout && newAmount > currentAmount ? { acceptedAt: agreedAtCheckout.toISOString() } : {}),
  });
  return true;
}

/** POST /admin/v1/products/{id}/plans/{planId}/price-changes: schedules the change and tells every subscriber concerned. */
export async function schedulePriceChange(deps: Deps, storeId: string, productId: string, planId: string, input: SchedulePriceChangeInput): Promise<PriceChangeView> {
  const id = await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    // The product's row lock serializes two schedulings of the same plan (one pending change per plan).
    const product = await lockProduct(trx, storeId, productId);
    if (!product) throw new ApiError('PRODUCT_NOT_FOUND');
    const fields: FieldError[] = [];
    const plan = product.plans.find((p) => p.id === planId);
    if (product.type !== 'subscription') fields.push({ field: 'planId', message: MESSAGES.priceChanges.notSubscription });
    else if (!plan) fields.push({ field: 'planId', message: MESSAGES.priceChanges.unknownPlan });
    if (input.monthlyPrice === undefined && input.yearlyPrice === undefined) fields.push({ field: 'monthlyPrice', message: MESSAGES.priceChanges.noPrice });
    if (plan && input.monthlyPrice !== undefined && plan.monthlyPrice === null) fields.push({ field: 'monthlyPrice', message: MESSAGES.priceChanges.intervalNotOffered });
    if (plan && input.yearlyPrice !== undefined && plan.yearlyPrice === null) fields.push({ field: 'yearlyPrice', message: MESSAGES.priceChanges.intervalNotOffered });
    const effectiveAt = new Date(input.effectiveAt);
    if (Number.isNaN(effectiveAt.getTime()) || effectiveAt.getTime() - now.getTime() < NOTICE_MS) fields.push({ field: 'effectiveAt', message: MESSAGES.priceChanges.noticeTooShort });
    if (fields.length) throw validationError(fields);
    const pending = await repo.pendingChangeOfPlan(trx, productId, planId, now);
    if (pending) throw new ApiError('PRICE_CHANGE_PENDING', { details: { priceChangeId: pending.id } });

    const change = await repo.insertPriceChange(trx, {
      id: newId('ppc', deps.clock),
      store_id: storeId,
      mode: product.mode,
      product_id: productId,
      plan_id: planId,
      monthly_price: input.monthlyPrice ?? null,
      yearly_price: input.yearlyPrice ?? null,
      effective_at: effectiveAt,
      created_at: now,
      canceled_at: null,
    });
    const intervals: BillingInterval[] = [...(input.monthlyPrice !== undefined ? ['monthly' as const] : []), ...(input.yearlyPrice !== undefined ? ['yearly' as const] : [])];
    for (const sub of await repo.lockSubscribersOfPlan(trx, storeId, product.mode, productId, planId, intervals)) {
      // A buyer who already chose another plan or interval for the next renewal is not concerned.
      if (sub.pending_plan && (sub.pending_plan.planId !== planId || sub.pending_plan.interval !== sub.billing_interval)) continue;
      await notify(trx, deps.clock, sub, change, subscriptionNow(sub, now));
    }
    return change.id;
  });
  return getPriceChange(deps, storeId, id);
}

export async function getPriceChange(deps: Deps, storeId: string, id: string): Promise<PriceChangeView> {
  const row = await repo.findPriceChangeInStore(deps.db, storeId, id);
  if (!row) throw new ApiError('PRICE_CHANGE_NOT_FOUND');
  return priceChangeView(row, deps.clock.now());
}

export async function listPriceChanges(deps: Deps, f: repo.PriceChangeListFilter, page: PageParams): Promise<Page<PriceChangeView>> {
  const now = deps.clock.now();
  return listPage(
    page,
    () => repo.countPriceChanges(deps.db, f),
    (offset, limit) => repo.pagePriceChanges(deps.db, f, offset, limit),
    (r) => priceChangeView(r, now),
  );
}

/**
 * Withdraws a change before its effective date: nobody is charged the new price; each subscriber still waiting on it
 * gets `price_change_scheduled` with `canceled: true`.
 */
export async function cancelPriceChange(deps: Deps, storeId: string, id: string): Promise<PriceChangeView> {
  await deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const c = await repo.lockPriceChange(trx, storeId, id);
    if (!c) throw new ApiError('PRICE_CHANGE_NOT_FOUND');
    if (c.canceled_at || c.effective_at <= now) throw new ApiError('PRICE_CHANGE_NOT_CANCELABLE');
    await repo.markPriceChangeCanceled(trx, id, now);
    for (const subscription_id of await repo.openSubscribersOf(trx, id)) {
      const sub = await subsRepo.lockSubscription(trx, subscription_id);
      if (!sub) continue;
      await repo.resolveDecisions(trx, sub.id, [id], 'moot', subscriptionNow(sub, now));
      const cleared = sub.price_change?.priceChangeId === id ? await subsRepo.updateSubscription(trx, sub.id, { price_change: jsonb(null) }) : sub;
      if (sub.status !== 'ended') await writeSubscriptionUpdated(trx, deps.clock, cleared, { kind: 'price_change_scheduled', priceChangeId: id, planId: c.plan_id, canceled: true });
    }
  });
  return getPriceChange(deps, storeId, id);
}

/**
 * A subscription not told yet about the newest change of its plan is told now (a subscription started after the
 * change was scheduled, or one whose period-end cancellation was undone). Called when a subscription starts and
 * before each renewal, inside the transaction holding its lock.
 */
export async function noticeIfMissed(trx: Db, clock: Clock, sub: SubscriptionRow, own: Date): Promise<void> {
  if (sub.status === 'ended' || sub.cancel_at_period_end) return;
  const change = await repo.latestChangeOfPlan(trx, sub.product_id, sub.plan_id);
  if (!change || change.store_id !== sub.store_id || change.mode !== sub.mode) return;
  if (await repo.findDecision(trx, sub.id, change.id)) return;
  if (sub.pending_plan && (sub.pending_plan.planId !== sub.plan_id || sub.pending_plan.interval !== sub.billing_interval)) return;
  await notify(trx, clock, sub, change, own);
}

/** What the renewal at `sub.current_period_end` does about price changes. */
export type RenewalPrice =
  | { kind: 'renew'; target: ChargeTarget; applied: string | null }
  | { kind: 'end'; priceChangeId: string };

/**
 * Decides the renewal at the period end of a locked subscription: the newest open change whose date has come (older
 * ones are superseded). An increase the buyer agreed to, or any decrease, sets the charge's amount and list prices; an
 * increase not agreed to ends the subscription (the caller ends it, charging nothing). A change of another plan or
 * interval than the renewal buys is moot.
 */
export async function priceAtRenewal(trx: Db, sub: SubscriptionRow, target: ChargeTarget, own: Date): Promise<RenewalPrice> {
  const due = (await repo.openDecisions(trx, sub.id)).filter((d) => d.applies_from <= sub.current_period_end);
  if (due.length === 0) return { kind: 'renew', target, applied: null };
  const [d, ...older] = due;
  await repo.resolveDecisions(trx, sub.id, older.map((o) => o.price_change_id), 'superseded', own);
  if (d.plan_id !== target.planId || d.billing_interval !== target.interval) {
    await repo.resolveDecisions(trx, sub.id, [d.price_change_id], 'moot', own);
    return { kind: 'renew', target, applied: null };
  }
  const newAmount = Number(d.new_amount);
  if (newAmount > target.amount && !d.accepted_at) return { kind: 'end', priceChangeId: d.price_change_id };
  const plan = sub.terms.plan;
  const listPrices = {
    monthlyPrice: d.monthly_price !== null ? Number(d.monthly_price) : (target.listPrices?.monthlyPrice ?? plan?.monthlyPrice ?? null),
    yearlyPrice: d.yearly_price !== null ? Number(d.yearly_price) : (target.listPrices?.yearlyPrice ?? plan?.yearlyPrice ?? null),
  };
  return { kind: 'renew', target: { ...target, amount: newAmount, listPrices }, applied: d.price_change_id };
}

export async function resolvePriceChange(trx: Db, sub: SubscriptionRow, priceChangeId: string, outcome: 'applied' | 'ended', own: Date): Promise<void> {
  await repo.resolveDecisions(trx, sub.id, [priceChangeId], outcome, own);
}

/**
 * The buyer agrees in the portal to a price increase they were told about: recorded with the subscription's time and
 * announced (`price_change_accepted`). Agreeing twice is harmless (nothing new is written).
 */
export async function acceptPriceChange(deps: Deps, subscriptionId: string, priceChangeId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const sub = await subsRepo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    const d = (await repo.openDecisions(trx, sub.id)).find((x) => x.price_change_id === priceChangeId);
    if (!d || Number(d.new_amount) <= Number(d.current_amount)) throw new ApiError('NOT_FOUND', { message: MESSAGES.priceChanges.notOffered });
    if (d.accepted_at) return;
    const own = subscriptionNow(sub, deps.clock.now());
    await repo.acceptDecision(trx, sub.id, priceChangeId, own);
    // The terms of the renewal at `decideBy` as the buyer agreed to them, kept with the subscription (the API's
    // `pendingPriceChange` and the receipt's next charge show them from now on).
    const agreed: ScheduledPrice = {
      priceChangeId,
      planId: d.plan_id,
      billingInterval: d.billing_interval,
      currentAmount: Number(d.current_amount),
      amount: Number(d.new_amount),
      effectiveAt: d.decide_by.toISOString(),
      consentRequired: true,
      acceptedAt: own.toISOString(),
    };
    const updated = await subsRepo.updateSubscription(trx, sub.id, { price_change: jsonb(agreed), updated_at: deps.clock.now() });
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'price_change_accepted',
      priceChangeId,
      planId: d.plan_id,
      billingInterval: d.billing_interval,
      currentAmount: Number(d.current_amount),
      newAmount: Number(d.new_amount),
      effectiveAt: d.applies_from.toISOString(),
      decideBy: d.decide_by.toISOString(),
      acceptedAt: own.toISOString(),
    });
  });
}

/** What the portal shows of a subscription's open price changes. */
export interface PortalPriceChange {
  priceChangeId: string;
  billingInterval: BillingInterval;
  currentAmount: number;
  newAmount: number;
  effectiveAt: string;
  decideBy: string;
  consentRequired: boolean;
  acceptedAt: string | null;
}

export async function portalPriceChanges(db: Db, subscriptionIds: string[]): Promise<Map<string, PortalPriceChange[]>> {
  const out = new Map<string, PortalPriceChange[]>();
  for (const d of await repo.openDecisionsOf(db, subscriptionIds)) {
    const list = out.get(d.subscription_id) ?? [];
    list.push({
      priceChangeId: d.price_change_id,
      billingInterval: d.billing_interval,
      currentAmount: Number(d.current_amount),
      newAmount: Number(d.new_amount),
      effectiveAt: d.applies_from.toISOString(),
      decideBy: d.decide_by.toISOString(),
      consentRequired: Number(d.new_amount) > Number(d.current_amount),
      acceptedAt: d.accepted_at ? d.accepted_at.toISOString() : null,
    });
    out.set(d.subscription_id, list);
  }
  return out;
}
