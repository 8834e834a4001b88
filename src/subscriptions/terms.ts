import { withPlan, type SaleTerms } from '../orders/terms';
import type { ChargeTarget } from './tables';

/**
 * The terms a renewal or difference order is sold under: the subscription's (agreed at signup), with the list
 * prices of the plan the charge buys. A plan change carries the new plan's list prices as the buyer saw them when
 * choosing it (`ChargeTarget.listPrices`); the live product is never read. A change recorded before migration 015
 * has none: its prices stay unknown (null), so no discount is ever clawed back on it.
 */
export function chargeTerms(sub: { terms: SaleTerms }, target: ChargeTarget): SaleTerms {
  const t = sub.terms;
  if (t.plan?.id === target.planId && !target.listPrices) return t;
  // The plan's name as sold: the target's when it carries one (a change recorded with it), else the same plan's.
  const name = target.planName ?? (t.plan?.id === target.planId ? t.plan.name : undefined);
  return withPlan(t, {
    id: target.planId,
    ...(name ? { name } : {}),
    monthlyPrice: target.listPrices?.monthlyPrice ?? null,
    yearlyPrice: target.listPrices?.yearlyPrice ?? null,
  });
}
