import type { AppDeps } from '../../deps';
import type { Db } from '../../db';
import { jsonb } from '../../db';
import { ApiError } from '../../platform/errors';
import { MESSAGES } from '../../platform/messages';
import { writeSubscriptionUpdated } from '../events';
import { subscriptionNow } from '../model';
import * as subsRepo from '../repo';
import * as repo from './repo';
import type { BillingInterval, ScheduledPrice } from '../tables';

/**
 * The buyer's side of a price change (the rules: ./service.ts), in the portal: the open changes it shows and the
 * buyer's agreement to an increase.
 */

type Deps = Pick<AppDeps, 'db' | 'clock'>;

/**
 * The buyer's answer in the portal to a price increase they were told about, recorded with the subscription's time and
 * announced in the same transaction. `accept`: the renewal at `decideBy` charges the new price
 * (`price_change_accepted`). `decline` (offered as plainly as accepting, 제13조⑥ and 시행령 제20조의2): the refusal is
 * kept and the outcome is the one an unanswered increase already has, so nothing depends on the buyer coming back:
 * the subscription runs at the current price until `decideBy`, then ends there with nothing charged
 * (`endReason: price_change_declined`); until then the buyer may still agree (`price_change_declined` with `endsAt`).
 * Giving the same answer twice is harmless (nothing new is written).
 */
export async function answerPriceChange(deps: Deps, subscriptionId: string, priceChangeId: string, answer: 'accept' | 'decline'): Promise<{ decideBy: Date }> {
  return deps.db.transaction().execute(async (trx) => {
    const sub = await subsRepo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    if (sub.status === 'ended') throw new ApiError('ALREADY_ENDED');
    const d = (await repo.openDecisions(trx, sub.id)).find((x) => x.price_change_id === priceChangeId);
    if (!d || Number(d.new_amount) <= Number(d.current_amount)) throw new ApiError('NOT_FOUND', { message: MESSAGES.priceChanges.notOffered });
    if (answer === 'accept' ? d.accepted_at : d.declined_at) return { decideBy: d.decide_by };
    const own = subscriptionNow(sub, deps.clock.now());
    if (answer === 'accept') await repo.acceptDecision(trx, sub.id, priceChangeId, own);
    else await repo.declineDecision(trx, sub.id, priceChangeId, own);
    // The terms of the renewal at `decideBy` as the buyer answered, kept with the subscription (the API's
    // `pendingPriceChange` and the receipt's next charge show them from now on).
    const terms: ScheduledPrice = {
      priceChangeId,
      planId: d.plan_id,
      billingInterval: d.billing_interval,
      currentAmount: Number(d.current_amount),
      amount: Number(d.new_amount),
      effectiveAt: d.decide_by.toISOString(),
      consentRequired: true,
      acceptedAt: answer === 'accept' ? own.toISOString() : null,
    };
    const updated = await subsRepo.updateSubscription(trx, sub.id, { price_change: jsonb(terms), updated_at: deps.clock.now() });
    const fields = {
      priceChangeId,
      planId: d.plan_id,
      billingInterval: d.billing_interval,
      currentAmount: Number(d.current_amount),
      newAmount: Number(d.new_amount),
      effectiveAt: d.applies_from.toISOString(),
      decideBy: d.decide_by.toISOString(),
    };
    await writeSubscriptionUpdated(
      trx,
      deps.clock,
      updated,
      answer === 'accept'
        ? { kind: 'price_change_accepted', ...fields, acceptedAt: own.toISOString() }
        : { kind: 'price_change_declined', ...fields, declinedAt: own.toISOString(), endsAt: d.decide_by.toISOString() },
    );
    return { decideBy: d.decide_by };
  });
}

/** The buyer agrees in the portal to a price increase they were told about (see answerPriceChange). */
export async function acceptPriceChange(deps: Deps, subscriptionId: string, priceChangeId: string): Promise<void> {
  await answerPriceChange(deps, subscriptionId, priceChangeId, 'accept');
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
  /** The buyer declined it in the portal (they may still agree before `decideBy`). */
  declinedAt: string | null;
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
      declinedAt: d.declined_at ? d.declined_at.toISOString() : null,
    });
    out.set(d.subscription_id, list);
  }
  return out;
}
