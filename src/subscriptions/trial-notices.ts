import { sql } from 'kysely';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import type { BackgroundTask } from '../platform/background';
import type { Clock } from '../platform/clock';
import { writeSubscriptionUpdated } from './events';
import { isTrialing, subscriptionNow, type SubscriptionRow } from './model';
import { lockSubscription } from './repo';
import type { SubscriptionTrialNoticesTable } from './tables';
import { needsFreshTrialConsent } from './trial-consent';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;
type Notice = SubscriptionTrialNoticesTable['notice'];

const DAY_MS = 86_400_000;
/** A trial no longer than the lead time gets a second notice this many days before its end. */
export const FINAL_NOTICE_DAYS = 3;

/**
 * When a free trial's conversion notices are due (전자상거래법 제13조⑥, 시행령 제20조의2: 30 days; read as in the README's
 * "Free trials"): `leadDays` (TRIAL_NOTICE_DAYS, default 30) before the first charge; a trial no longer than that
 * cannot be told that early, so it is told at signup and again FINAL_NOTICE_DAYS before its end (when it is longer
 * than those days).
 */
export function trialNoticeSchedule(start: Date, end: Date, leadDays: number): Array<{ notice: Notice; dueAt: Date }> {
  const length = end.getTime() - start.getTime();
  if (length > leadDays * DAY_MS) return [{ notice: 'lead', dueAt: new Date(end.getTime() - leadDays * DAY_MS) }];
  const out: Array<{ notice: Notice; dueAt: Date }> = [{ notice: 'signup', dueAt: start }];
  if (length > FINAL_NOTICE_DAYS * DAY_MS) out.push({ notice: 'final', dueAt: new Date(end.getTime() - FINAL_NOTICE_DAYS * DAY_MS) });
  return out;
}

/**
 * Writes every conversion notice of a locked, trialing subscription that is due by its own clock (`own`) and not yet
 * written: a `subscription.updated` with `change.kind: trial_will_end`. The notice row's primary key makes each one
 * once only, however often this runs. A trial set to end by a cancellation is never charged: it gets none.
 */
export async function writeDueTrialNotices(trx: Db, deps: { clock: Clock; config: Pick<AppDeps['config'], 'trialNoticeDays'> }, sub: SubscriptionRow, own: Date): Promise<number> {
  if (!isTrialing(sub) || sub.cancel_at_period_end || !sub.trial_ends_at || own >= sub.trial_ends_at) return 0;
  let written = 0;
  for (const n of trialNoticeSchedule(sub.started_at, sub.trial_ends_at, deps.config.trialNoticeDays)) {
    if (n.dueAt > own) continue;
    const inserted = await trx
      .insertInto('subscription_trial_notices')
      .values({ subscription_id: sub.id, notice: n.notice, due_at: n.dueAt, written_at: deps.clock.now() })
      .onConflict((oc) => oc.doNothing())
      .returning('notice')
      .executeTakeFirst();
    if (!inserted) continue;
    await writeSubscriptionUpdated(trx, deps.clock, sub, {
      kind: 'trial_will_end',
      trialEndsAt: sub.trial_ends_at.toISOString(),
      amount: Number(sub.amount),
      currency: 'KRW',
      interval: sub.billing_interval,
      notice: n.notice,
      // A trial longer than 30 days: this notice asks for the fresh consent (trial-consent.ts); without it, no charge.
      ...(needsFreshTrialConsent(sub) ? { consentRequired: true } : {}),
    });
    written++;
  }
  return written;
}

/** Subscriptions in a free trial that has not ended by their own clock (candidates for a notice). */
function trialingSubscriptions(db: Db, now: Date, limit: number, onlyId?: string): Promise<Pick<SubscriptionRow, 'id'>[]> {
  const ownNow = sql<Date>`${now}::timestamptz + (test_clock_offset_ms * interval '1 millisecond')`;
  let q = db
    .selectFrom('subscriptions')
    .select('id')
    .where('status', '=', 'active')
    .where('cancel_at_period_end', '=', false)
    .where('trial_ends_at', 'is not', null)
    .whereRef('current_period_start', '<', 'trial_ends_at')
    .where('trial_ends_at', '>', ownNow);
  if (onlyId) q = q.where('id', '=', onlyId);
  return q.orderBy('trial_ends_at').limit(limit).execute();
}

/** The notice run: takes "now", safe to run at any time and twice (each notice is written once). Returns notices written. */
export async function runTrialNotices(deps: Deps, now: Date, onlyId?: string): Promise<number> {
  let n = 0;
  for (const { id } of await trialingSubscriptions(deps.db, now, 500, onlyId)) {
    n += await deps.db.transaction().execute(async (trx) => {
      const sub = await lockSubscription(trx, id);
      return sub ? writeDueTrialNotices(trx, deps, sub, subscriptionNow(sub, now)) : 0;
    });
  }
  if (n) deps.log.info({ notices: n }, 'trial conversion notices written');
  return n;
}

/**
 * Checked hourly: a notice is due on a day (lead time in days), so it goes out within the hour it falls due; running
 * more often than daily costs one indexed query and writes nothing twice.
 */
export function trialNoticeTask(deps: Deps): BackgroundTask {
  return { name: 'subscriptions.trial_notices', intervalMs: 3_600_000, run: (now) => runTrialNotices(deps, now) };
}
