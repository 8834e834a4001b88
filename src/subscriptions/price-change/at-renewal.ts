import type { Db } from '../../db';
import type { SubscriptionRow } from '../model';
import * as repo from './repo';
import type { ChargeTarget } from '../tables';

/**
 * What a price change does at the renewal it applies to (the rules: ./service.ts): the charge's amount and list
 * prices when the buyer agreed or the price goes down, the end of the subscription when an increase was not agreed
 * to, and the decision resolved once the renewal is done.
 */

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
