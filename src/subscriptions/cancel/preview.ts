import type { Db } from '../../db';
import type { SaleTerms } from '../../orders/terms';
import { computeCancel, type CancelComputation, type CancelOrderInput, type CancelPolicy } from './model';
import { activeRefundRequest } from './refunds';
import type { CancelPreviewView } from './schemas';
import type { SubscriptionRow } from '../model';
import * as renewalRepo from '../renewal/repo';
import * as cancelRepo from './repo';

/**
 * The cancel preview read from the database: the subscription's orders, refunds in flight, refund requests, an open
 * cancellation or charge, and evidence of use, each order under the terms it was sold with, fed to the pure model
 * (./model.ts). The preview endpoint shows it; the immediate cancellation (./immediate.ts) computes it again under
 * the subscription's lock and refunds exactly what it says.
 */

export async function cancelInputs(db: Db, sub: SubscriptionRow, now: Date): Promise<{ comp: CancelComputation; orderIds: string[]; chargeId: string | null }> {
  const orders = await cancelRepo.cancelOrdersOf(db, sub.id);
  const orderIds = orders.map((o) => o.id);
  const inFlight = new Set(
    orderIds.length
      ? (await cancelRepo.refundsInFlightOf(db, orderIds)).map((r) => r.order_id)
      : [],
  );
  const request = await activeRefundRequest(db, sub.id, orderIds);
  const claim = await cancelRepo.openCancellation(db, sub.id);
  // A renewal (or an upgrade's difference) charge whose answer is not recorded yet: the period it pays for is not
  // known, so no preview can be honoured until it is (blocked like a refund in progress; see CANCEL_CHECKS).
  const charge = await renewalRepo.chargeInFlight(db, sub.id);
  // Evidence of use: a license of the subscription activated or verified during the order's period (the seller's
  // burden of proof; no evidence counts as unused). Portal visits are not use: opening the portal to cancel must
  // not cost the buyer the statutory refund.
  const usage = orderIds.length ? await cancelRepo.licenseUsageOf(db, sub.id, orderIds) : [];
  const usedDuring = (from: Date) => usage.some((u) => (u.activated_at >= from && u.activated_at <= now) || (u.last_verified_at !== null && u.last_verified_at >= from && u.last_verified_at <= now));

  const inputs: CancelOrderInput[] = orders
    .filter((o) => o.period_start && o.period_end && o.paid_at)
    .map((o) => ({
      id: o.id,
      amount: Number(o.amount),
      refundedAmount: Number(o.refunded_amount ?? 0),
      paidAt: o.paid_at!,
      periodStart: o.period_start!,
      periodEnd: o.period_end!,
      subscriptionEvent: o.subscription_event,
      settled: o.settlement_id !== null,
      refundInFlight: inFlight.has(o.id),
      used: usedDuring(o.period_start! > o.paid_at! ? o.paid_at! : o.period_start!),
      // Each order under the terms it was sold with (never the live product): its refund policy and its plan's M.
      policy: policyOf(o.terms),
      monthlyListPrice: o.terms.plan?.monthlyPrice ?? null,
      interval: o.billing_interval ?? undefined,
    }));
  const comp = computeCancel({
    subscription: { status: sub.status, billingInterval: sub.billing_interval, currentPeriodStart: sub.current_period_start, currentPeriodEnd: sub.current_period_end },
    orders: inputs,
    activeRefundRequest: request !== null,
    cancellationInProgress: claim !== undefined || charge !== undefined,
    policy: policyOf(sub.terms),
    monthlyListPrice: sub.terms.plan?.monthlyPrice ?? null,
    now,
  });
  return { comp, orderIds, chargeId: charge?.id ?? null };
}

function policyOf(t: SaleTerms): CancelPolicy {
  return { refundDays: t.refundDays, trialOffered: t.trialOffered, usageRestrictionMarked: t.usageRestrictionMarked, clawbackDisclosed: t.clawbackDisclosed, penaltyRate: t.penaltyRate };
}

export async function previewOf(db: Db, sub: SubscriptionRow, now: Date): Promise<CancelPreviewView> {
  const { comp, orderIds } = await cancelInputs(db, sub, now);
  return {
    mode: sub.mode,
    periodEnd: { effectiveAt: (sub.status === 'ended' && sub.ended_at ? sub.ended_at : sub.current_period_end).toISOString() },
    immediate: comp.immediate,
    pendingRefundRequest: await activeRefundRequest(db, sub.id, orderIds),
  };
}
