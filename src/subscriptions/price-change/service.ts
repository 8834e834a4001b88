import type { AppDeps } from '../../deps';
import { ApiError, validationError, type FieldError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { listPage, type PageParams } from '../../platform/http/pagination';
import type { Page } from '../../platform/http/schemas';
import { MESSAGES } from '../../platform/messages';
import { lockProduct } from '../../catalog/repo';
import { jsonb } from '../../db';
import { writeSubscriptionUpdated } from '../events';
import { subscriptionNow } from '../model';
import * as subsRepo from '../repo';
import * as repo from './repo';
import { NOTICE_MS, notify } from './notice';
import type { PriceChangeView, SchedulePriceChangeInput } from './schemas';
import type { BillingInterval } from '../tables';

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
 *
 * This file holds the seller's side (scheduling, reading and withdrawing a change); telling subscribers is in
 * ./notice.ts, the renewal's part in ./at-renewal.ts, the buyer's agreement in the portal in ./acceptance.ts.
 */

type Deps = Pick<AppDeps, 'db' | 'clock'>;

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
