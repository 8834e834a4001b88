import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { MESSAGES } from '../platform/messages';
import type { BackgroundTask } from '../platform/background';
import { prorateDifference, subscriptionNow } from './model';
import { changePlan, type PlanChangeResult } from './plan-change';
import { closeOffer, planOfferView, type PlanOfferView } from './plan-consent';
import * as repo from './plan-consent-repo';
import * as subsRepo from './repo';
import type { Deps } from './renewal';

/**
 * The buyer's and the seller's answers to a plan-change offer (rules: src/subscriptions/plan-consent.ts), and the
 * run that lapses offers not accepted by their deadline.
 */

/** The buyer accepts in the portal: the change runs as their own (an upgrade charges its difference now). */
export async function acceptOffer(deps: Deps, subscriptionId: string, offerId: string): Promise<PlanChangeResult> {
  const offer = await repo.findPlanConsent(deps.db, subscriptionId, offerId);
  if (!offer || offer.status !== 'pending') throw new ApiError('NOT_FOUND', { message: MESSAGES.subscriptions.planOfferGone });
  return changePlan(deps, subscriptionId, { planId: offer.plan_id, interval: offer.billing_interval }, { actor: 'buyer', offerId });
}

async function close(deps: Deps, subscriptionId: string, offerId: string | null, outcome: 'declined' | 'withdrawn'): Promise<PlanOfferView> {
  return deps.db.transaction().execute(async (trx) => {
    const sub = await subsRepo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    const offer = await repo.pendingOffer(trx, sub.id, true);
    const own = subscriptionNow(sub, deps.clock.now());
    if (!offer || (offerId !== null && offer.id !== offerId) || offer.deadline <= own) throw new ApiError('NOT_FOUND', { message: MESSAGES.subscriptions.planOfferGone });
    await closeOffer(trx, deps.clock, sub, offer, outcome, own);
    return planOfferView((await repo.findPlanConsent(trx, sub.id, offer.id))!);
  });
}

/** The buyer declines in the portal: nothing changes. */
export function declineOffer(deps: Deps, subscriptionId: string, offerId: string): Promise<PlanOfferView> {
  return close(deps, subscriptionId, offerId, 'declined');
}

/** The seller withdraws the open offer (POST /admin/v1/subscriptions/{id}/plan-change-offer/withdraw). */
export async function withdrawOffer(deps: Deps, storeId: string, subscriptionId: string): Promise<PlanOfferView> {
  const sub = await subsRepo.getSubscription(deps.db, subscriptionId);
  if (!sub || sub.store_id !== storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  return close(deps, subscriptionId, null, 'withdrawn');
}

/** The open offer of a subscription in the seller's store, or null (GET /admin/v1/subscriptions/{id}/plan-change-offer). */
export async function openOfferOf(deps: Pick<AppDeps, 'db'>, storeId: string, subscriptionId: string): Promise<PlanOfferView | null> {
  const sub = await subsRepo.getSubscription(deps.db, subscriptionId);
  if (!sub || sub.store_id !== storeId) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  const offer = await repo.pendingOffer(deps.db, sub.id);
  return offer ? planOfferView(offer) : null;
}

/** Lapses every open offer whose deadline has passed by its subscription's clock (nothing changes). Returns how many. */
export async function lapseDueOffers(deps: Deps, now: Date, onlyId?: string): Promise<number> {
  let n = 0;
  for (const o of await repo.overdueOffers(deps.db, now, 200, onlyId)) {
    n += await deps.db.transaction().execute(async (trx) => {
      const sub = await subsRepo.lockSubscription(trx, o.subscription_id);
      const offer = sub ? await repo.pendingOffer(trx, sub.id, true) : undefined;
      if (!sub || !offer || offer.id !== o.id) return 0;
      const own = subscriptionNow(sub, now);
      if (offer.deadline > own) return 0;
      await closeOffer(trx, deps.clock, sub, offer, 'lapsed', own);
      return 1;
    });
  }
  if (n) deps.log.info({ offers: n }, 'plan-change offers lapsed');
  return n;
}

export function planOfferTask(deps: Deps): BackgroundTask {
  return { name: 'subscriptions.plan_offers', intervalMs: 300_000, run: (now) => lapseDueOffers(deps, now) };
}

/** What the portal shows of an open offer: the change, the estimated difference if accepted now, the deadline. */
export interface PortalPlanOffer extends PlanOfferView {
  fromPlanName: string;
  toPlanName: string;
  /** An upgrade on the same interval: accepting now charges about this much (prorated at this moment). */
  differenceNow: number;
  timing: 'now' | 'next_renewal';
}

export async function portalPlanOffers(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  subs: Array<{ id: string; test_clock_offset_ms: number; current_period_start: Date; current_period_end: Date; amount: number; billing_interval: string; trial_ends_at: Date | null; status: string }>,
  planNames: (subscriptionId: string, planId: string) => string,
): Promise<Map<string, PortalPlanOffer>> {
  const out = new Map<string, PortalPlanOffer>();
  const byId = new Map(subs.map((s) => [s.id, s]));
  for (const r of await repo.pendingOffersOf(deps.db, subs.map((s) => s.id))) {
    const sub = byId.get(r.subscription_id)!;
    const own = subscriptionNow(sub, deps.clock.now());
    if (r.deadline <= own) continue;
    const upgrade = r.billing_interval === sub.billing_interval && Number(r.amount) > Number(sub.amount);
    const trialing = sub.status === 'active' && sub.trial_ends_at !== null && sub.current_period_start < sub.trial_ends_at;
    out.set(r.subscription_id, {
      ...planOfferView(r),
      fromPlanName: planNames(r.subscription_id, r.from_plan_id),
      toPlanName: planNames(r.subscription_id, r.plan_id),
      differenceNow: upgrade && !trialing ? prorateDifference(Number(sub.amount), Number(r.amount), sub.current_period_start, sub.current_period_end, own) : 0,
      timing: upgrade ? 'now' : 'next_renewal',
    });
  }
  return out;
}
