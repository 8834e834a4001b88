// Queries of the upcoming-renewal notice of yearly plans (./upcoming-notice.ts). Each takes the executor.
import { sql } from 'kysely';
import type { Db } from '../../db';

/** Yearly subscriptions renewing in (now, until] with no notice yet for their current period. */
export function yearlyRenewalsDue(db: Db, now: Date, untilMs: number, limit: number, subscriptionId?: string) {
  let q = db
    .selectFrom('subscriptions as s')
    .selectAll('s')
    .where('s.billing_interval', '=', 'yearly')
    .where('s.status', '=', 'active')
    .where('s.cancel_at_period_end', '=', false)
    // A test-mode subscription runs on its test clock: its own "now" is the service time plus its offset.
    .where(sql<boolean>`s.current_period_end > ${now}::timestamptz + (s.test_clock_offset_ms * interval '1 millisecond')`)
    .where(sql<boolean>`s.current_period_end <= ${now}::timestamptz + (s.test_clock_offset_ms * interval '1 millisecond') + (${untilMs}::bigint * interval '1 millisecond')`)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('mail_renewal_notices as n').select('n.subscription_id').whereRef('n.subscription_id', '=', 's.id').whereRef('n.period_end', '=', 's.current_period_end'))))
    .orderBy('s.current_period_end')
    .limit(limit);
  if (subscriptionId) q = q.where('s.id', '=', subscriptionId);
  return q.execute();
}

/** Claims the notice of one period; false when it was already written (a second run, another worker). */
export async function claimRenewalNotice(trx: Db, subscriptionId: string, periodEnd: Date, now: Date): Promise<boolean> {
  const r = await trx
    .insertInto('mail_renewal_notices')
    .values({ subscription_id: subscriptionId, period_end: periodEnd, created_at: now })
    .onConflict((oc) => oc.columns(['subscription_id', 'period_end']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

