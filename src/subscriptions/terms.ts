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
  return withPlan(t, { id: target.planId, monthlyPrice: target.listPrices?.monthlyPrice ?? null, yearlyPrice: target.listPrices?.yearlyPrice ?? null });
}
