import type { AppDeps } from '../../deps';
import { lockSubscription } from '../repo';
import { writeSubscriptionUpdated } from '../events';
import * as repo from './notice-repo';
import { openDecisions } from '../price-change/repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

/**
 * The daily upcoming-renewal notice for yearly plans: for each active yearly subscription whose period ends within
 * MAIL_RENEWAL_NOTICE_DAYS (on its own clock: a test-mode subscription's test clock), writes `subscription.updated`
 * with change `{ kind: 'renewal_upcoming', renewsAt, amount }` once per period (mail_renewal_notices keeps the
 * period), and the mail hook mails it. Safe to run twice and from two workers. The mail module runs it hourly; a
 * test clock's advance runs it for its subscription at once (`subscriptionId`), before any renewal falls due: the
 * reminder near a yearly buyer's own date, with the price change they must answer, used to wait for the next hourly
 * scan, so a test clock moved past 30 days before the renewal (and on to it) never showed it (issue 38 item 9).
 */
export async function runRenewalNoticesOnce(deps: Deps, now: Date, subscriptionId?: string): Promise<number> {
  const windowMs = deps.config.mailRenewalNoticeDays * 86_400_000;
  let n = 0;
  for (;;) {
    const due = await repo.yearlyRenewalsDue(deps.db, now, windowMs, 100, subscriptionId);
    if (due.length === 0) return n;
    for (const candidate of due) {
      await deps.db.transaction().execute(async (trx) => {
        const sub = await lockSubscription(trx, candidate.id);
        // Changed meanwhile (canceled, renewed, ended): the next scan sees it as it is now.
        if (!sub || sub.status !== 'active' || sub.cancel_at_period_end || sub.billing_interval !== 'yearly' || sub.current_period_end.getTime() !== candidate.current_period_end.getTime()) return;
        if (!(await repo.claimRenewalNotice(trx, sub.id, sub.current_period_end, deps.clock.now()))) return;
        let amount = sub.pending_plan ? sub.pending_plan.amount : Number(sub.amount);
        // This buyer's own price change at this renewal (issue 29 item 5): the reminder 30 days before it. An agreed
        // increase or a decrease is what will be charged; an increase not agreed to ends the subscription then.
        const due = (await openDecisions(trx, sub.id)).find((d) => d.applies_from <= sub.current_period_end && d.billing_interval === sub.billing_interval && !sub.pending_plan);
        let priceChange: Record<string, unknown> | null = null;
        if (due) {
          const newAmount = Number(due.new_amount);
          const needs = newAmount > Number(due.current_amount);
          if (!needs || due.accepted_at) amount = newAmount;
          priceChange = { priceChangeId: due.price_change_id, currentAmount: Number(due.current_amount), newAmount, consentRequired: needs, accepted: !!due.accepted_at };
        }
        await writeSubscriptionUpdated(trx, deps.clock, sub, { kind: 'renewal_upcoming', renewsAt: sub.current_period_end.toISOString(), amount, ...(priceChange ? { priceChange } : {}) });
        n++;
      });
    }
    if (due.length < 100) return n;
  }
}
