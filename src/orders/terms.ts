import type { PlanRecord, ProductsTable } from '../catalog/tables';

/**
 * The terms a buyer was sold under (전자상거래법 제17조: the terms disclosed at sale, and any longer period the seller
 * granted, are the contract). They are copied from the product when the buyer pays and kept with the order (and
 * the subscription), and every refund computation reads them from there: a seller editing the product changes
 * future sales only. Migration 015 gave orders paid before it their product's terms as they stood then.
 */
export interface SaleTerms {
  /** Which wording of the refund-terms text the payment page showed (src/pages/terms.ts); `pre-015` for migrated orders. */
  version: string;
  /** The product's `refundPolicy.refundDays` at sale: the withdrawal window is max(7, refundDays) days. */
  refundDays: number;
  /** Percent withheld from a prorated refund outside the window (0–10). */
  penaltyRate: number;
  /** Recovery of an annual plan's discount on early cancellation was disclosed. */
  clawbackDisclosed: boolean;
  /** A trial was offered and use was marked as ending the right of withdrawal (both needed, 제17조②·⑥). */
  trialOffered: boolean;
  usageRestrictionMarked: boolean;
  /** The product's licence mode at sale (what "use" means on the receipt). */
  licensed: boolean;
  /**
   * The plan the order was sold under: its display name as the payment page showed it (mails and the receipt say it;
   * migration 074; absent when unknown, e.g. a plan change recorded without it) and its list prices (the clawback's
   * monthly price M); null for one-time products.
   */
  plan: { id: string; name?: string | null; monthlyPrice: number | null; yearlyPrice: number | null } | null;
}

/**
 * The wording version of the refund terms the payment page shows (src/pages/terms.ts refundTerms). Change it with
 * the wording, so an order tells which text its buyer read.
 */
export const TERMS_VERSION = '2026-11-25';

type ProductTerms = Pick<ProductsTable, 'refund_days' | 'penalty_rate' | 'clawback_disclosed' | 'trial_offered' | 'usage_restriction_marked' | 'license_mode'> & {
  plans: PlanRecord[];
};

/** The product's terms now, for a sale of `planId` (null: a one-time product). */
export function termsOfProduct(p: ProductTerms, planId: string | null): SaleTerms {
  const plan = planId ? p.plans.find((x) => x.id === planId) : undefined;
  return {
    version: TERMS_VERSION,
    refundDays: p.refund_days,
    penaltyRate: p.penalty_rate,
    clawbackDisclosed: p.clawback_disclosed,
    trialOffered: p.trial_offered,
    usageRestrictionMarked: p.usage_restriction_marked,
    licensed: p.license_mode !== 'none',
    plan: plan ? { id: plan.id, name: plan.name, monthlyPrice: plan.monthlyPrice ?? null, yearlyPrice: plan.yearlyPrice ?? null } : null,
  };
}

/** The same terms for another plan of the product (an upgrade or a downgrade): the refund policy stays, the list prices are the new plan's. */
export function withPlan(t: SaleTerms, plan: SaleTerms['plan']): SaleTerms {
  return { ...t, plan };
}

/** The sold plan's display name, else its id (never the product's current list). */
export const soldPlanName = (t: Pick<SaleTerms, 'plan'> | null | undefined, planId: string | null): string | null =>
  (t?.plan && t.plan.id === planId && t.plan.name) || planId;

/** Use bars withdrawal only when the seller both offered a trial and marked the restriction (제17조⑥). */
export const restrictionValid = (t: Pick<SaleTerms, 'trialOffered' | 'usageRestrictionMarked'>): boolean => t.trialOffered && t.usageRestrictionMarked;
