import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { jsonb } from '../db';
import { newId } from '../platform/ids';
import { writeEvent } from '../platform/events';
import { decryptSecret } from '../platform/crypto';
import { periodEnd } from '../checkout/model';
import { orderViewOf } from '../orders/service';
import { issueLicensesForOrder } from '../licenses/issue-on-payment';
import { providerFor, type Outcome, type ConfirmResult } from '../payments';
import { getModeSettings } from '../stores/service';
import type { BackgroundTask } from '../jobs/worker';
import { CHARGE_LEASE_MS, nextRetryAt, subscriptionNow, subscriptionView, type SubscriptionChargeRow, type SubscriptionRow } from './model';
import * as repo from './repo';
import { writeSubscriptionEnded, writeSubscriptionUpdated } from './events';
import type { BillingInterval, EndReason } from './tables';

export type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** What a charge came to, for callers that wait for it (card update, plan change). */
export type ChargeResult =
  | { status: 'succeeded'; orderId: string }
  | { status: 'failed'; code: string; message: string }
  /** The gateway's answer is unknown (or another worker holds the charge): it is retried with the same idempotency key. */
  | { status: 'pending' };

type Target = { planId: string; interval: BillingInterval; amount: number };
type Step = { kind: 'idle' } | { kind: 'progress' } | { kind: 'charge'; chargeId: string };

/** At most this many renewals, retries and endings for one subscription in one run (a test clock moved years ahead). */
const MAX_STEPS = 60;

export function billingTask(deps: Deps): BackgroundTask {
  return { name: 'subscriptions.billing', intervalMs: 30_000, run: (now) => runBilling(deps, now) };
}

/**
 * The billing run: takes "now" and is safe to run at any time, twice, or in several workers at once. It retries
 * charges whose worker died with them at the gateway, then brings every due subscription up to date (renewals at
 * the period end, dunning retries, period-end cancellations). Returns the number of subscriptions it touched.
 */
export async function runBilling(deps: Deps, now: Date): Promise<number> {
  let n = 0;
  for (const stale of await repo.staleCharges(deps.db, now, 50)) {
    const taken = await deps.db.transaction().execute((trx) => repo.takeOverCharge(trx, stale.id, now, new Date(now.getTime() + CHARGE_LEASE_MS)));
    if (taken) {
      await executeCharge(deps, taken.id);
      n++;
    }
  }
  for (const { id } of await repo.dueSubscriptions(deps.db, now, 100)) {
    n += (await processSubscription(deps, id, now)) > 0 ? 1 : 0;
  }
  return n;
}

/** Runs everything due for one subscription by its own clock until nothing is left due. Returns the steps taken. */
export async function processSubscription(deps: Deps, id: string, now: Date): Promise<number> {
  let steps = 0;
  for (; steps < MAX_STEPS; steps++) {
    const s = await deps.db.transaction().execute((trx) => step(trx, deps, id, now));
    if (s.kind === 'idle') break;
    if (s.kind === 'charge') {
      const r = await executeCharge(deps, s.chargeId);
      if (r.status === 'pending') break;
    }
  }
  return steps;
}

/** One due thing for a locked subscription: end it, or claim the charge it owes (called with the gateway after commit). */
async function step(trx: Db, deps: Deps, id: string, now: Date): Promise<Step> {
  const sub = await repo.lockSubscription(trx, id);
  if (!sub || sub.status === 'ended') return { kind: 'idle' };
  const own = subscriptionNow(sub, now);
  if (sub.status === 'active' && sub.current_period_end <= own) {
    if (sub.cancel_at_period_end) {
      await endSubscription(trx, deps, sub, 'canceled', sub.current_period_end);
      return { kind: 'progress' };
    }
    const target: Target = sub.pending_plan
      ? { planId: sub.pending_plan.planId, interval: sub.pending_plan.interval, amount: sub.pending_plan.amount }
      : { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
    const start = sub.current_period_end;
    return claim(trx, deps, sub, { kind: 'renewal', start, end: periodEnd(start, target.interval), attempt: 0, target }, now);
  }
  if (sub.status === 'past_due' && sub.next_retry_at && sub.next_retry_at <= own) {
    if (sub.cancel_at_period_end) {
      // The buyer asked to stop: no point collecting a period they will not use.
      await endSubscription(trx, deps, sub, 'canceled', own);
      return { kind: 'progress' };
    }
    return claimRetry(trx, deps, sub, now);
  }
  return { kind: 'idle' };
}

/** Claims the next dunning retry of a past_due subscription (also used by a card update, which brings it forward). */
export async function claimRetry(trx: Db, deps: Pick<Deps, 'clock'>, sub: SubscriptionRow, now: Date): Promise<Step> {
  const target: Target = { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
  return claim(trx, deps, sub, { kind: 'renewal', start: sub.current_period_start, end: sub.current_period_end, attempt: sub.dunning_attempts, target }, now);
}

/**
 * Claims one charge slot (subscription, kind, period, attempt): the unique key lets exactly one worker insert it. A
 * slot already taken is left alone, unless its worker died with it at the gateway (lease run out): then one
 * worker takes it over by a conditional update and asks the gateway again with the same idempotency key.
 */
export async function claim(
  trx: Db,
  deps: Pick<Deps, 'clock'>,
  sub: SubscriptionRow,
  c: { kind: 'renewal' | 'difference'; start: Date; end: Date; attempt: number; target: Target; amount?: number },
  now: Date,
): Promise<Step> {
  const lease = new Date(now.getTime() + CHARGE_LEASE_MS);
  const inserted = await repo.claimCharge(trx, {
    id: newId('sch', deps.clock),
    subscription_id: sub.id,
    kind: c.kind,
    period_start: c.start,
    period_end: c.end,
    attempt: c.attempt,
    order_id: newId('ord', deps.clock),
    amount: c.amount ?? c.target.amount,
    target: jsonb(c.target),
    status: 'charging',
    locked_until: lease,
    error_code: null,
    error_message: null,
    created_at: now,
    updated_at: now,
  });
  if (inserted) return { kind: 'charge', chargeId: inserted.id };
  const existing = await repo.findCharge(trx, sub.id, c.kind, c.start, c.attempt);
  if (existing?.status === 'charging' && existing.locked_until && existing.locked_until <= now) {
    const taken = await repo.takeOverCharge(trx, existing.id, now, lease);
    if (taken) return { kind: 'charge', chargeId: taken.id };
  }
  return { kind: 'idle' };
}

/** Calls the gateway for a claimed charge (never inside a transaction) and records what it answered. */
export async function executeCharge(deps: Deps, chargeId: string): Promise<ChargeResult> {
  const charge = await deps.db.selectFrom('subscription_charges').selectAll().where('id', '=', chargeId).executeTakeFirstOrThrow();
  const sub = await repo.getSubscription(deps.db, charge.subscription_id);
  if (!sub) throw new Error(`subscription ${charge.subscription_id} of charge ${chargeId} is gone`);
  const settings = (await getModeSettings(deps.db, sub.store_id, sub.mode)).raw;
  const provider = providerFor(deps, settings);
  let outcome: Outcome<ConfirmResult>;
  if (Number(charge.amount) === 0) {
    outcome = { status: 'succeeded', value: { paymentKey: '', approvedAt: deps.clock.now(), method: 'card' } };
  } else if (!provider) {
    outcome = { status: 'failed', code: 'CHECKOUT_NOT_CONFIGURED', message: '상점의 결제 설정이 완료되지 않았습니다.' };
  } else if (!sub.billing_key_sealed) {
    outcome = { status: 'failed', code: 'NO_BILLING_KEY', message: '등록된 결제 카드가 없습니다.' };
  } else {
    try {
      outcome = await provider.chargeBillingKey({
        billingKey: decryptSecret(deps.config.masterKey, sub.billing_key_sealed).toString('utf8'),
        customerKey: sub.customer_key,
        amount: Number(charge.amount),
        orderId: charge.order_id,
        orderName: `${sub.product_name} ${charge.kind === 'renewal' ? '정기결제' : '플랜 변경 차액'}`.slice(0, 100),
        idempotencyKey: charge.id,
      });
    } catch (err) {
      // A provider must not throw; if one does, the charge may have happened: unknown, retried with the same key.
      outcome = { status: 'unknown', message: err instanceof Error ? err.message : String(err) };
    }
  }
  return recordCharge(deps, chargeId, outcome, provider?.name ?? settings.payment_provider ?? 'simulator');
}

/** Records a gateway outcome for a charge. Safe to call twice: a charge no longer `charging` is left as it is. */
export async function recordCharge(deps: Deps, chargeId: string, outcome: Outcome<ConfirmResult>, providerName: 'simulator' | 'toss'): Promise<ChargeResult> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx): Promise<ChargeResult> => {
    const head = await trx.selectFrom('subscription_charges').select('subscription_id').where('id', '=', chargeId).executeTakeFirstOrThrow();
    // Lock order everywhere: the subscription, then its charge.
    const sub = (await repo.lockSubscription(trx, head.subscription_id))!;
    const charge = (await repo.lockCharge(trx, chargeId))!;
    if (charge.status === 'succeeded') return { status: 'succeeded', orderId: charge.order_id };
    if (charge.status === 'failed') return { status: 'failed', code: charge.error_code ?? 'FAILED', message: charge.error_message ?? '' };
    if (outcome.status === 'unknown') {
      await repo.updateCharge(trx, charge.id, { error_message: outcome.message.slice(0, 500), locked_until: new Date(now.getTime() + CHARGE_LEASE_MS), updated_at: now });
      deps.log.warn({ chargeId, subscriptionId: sub.id }, 'subscription charge outcome unknown; retried with the same idempotency key');
      return { status: 'pending' };
    }
    if (outcome.status === 'succeeded') {
      const orderId = await recordPaid(trx, deps, sub, charge, outcome.value, providerName, now);
      return { status: 'succeeded', orderId };
    }
    await repo.updateCharge(trx, charge.id, { status: 'failed', error_code: outcome.code.slice(0, 100), error_message: outcome.message.slice(0, 500), locked_until: null, updated_at: now });
    if (charge.kind === 'renewal' && sub.status !== 'ended') await renewalFailed(trx, deps, sub, charge, outcome, now);
    return { status: 'failed', code: outcome.code, message: outcome.message };
  });
}

async function recordPaid(trx: Db, deps: Deps, sub: SubscriptionRow, charge: SubscriptionChargeRow, result: ConfirmResult, providerName: 'simulator' | 'toss', now: Date): Promise<string> {
  const own = subscriptionNow(sub, now);
  const target = charge.target ?? { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
  const event = charge.kind === 'renewal' ? 'renewal' : 'difference';
  const order = await trx
    .insertInto('orders')
    .values({
      id: charge.order_id,
      store_id: sub.store_id,
      mode: sub.mode,
      product_id: sub.product_id,
      product_name: sub.product_name,
      plan_id: target.planId,
      billing_interval: target.interval,
      checkout_session_id: null,
      status: 'paid',
      amount: Number(charge.amount),
      currency: 'KRW',
      method: result.method ?? 'card',
      buyer_name: sub.buyer_name,
      buyer_email: sub.buyer_email,
      buyer_phone: sub.buyer_phone,
      metadata: jsonb(sub.metadata ?? null),
      coupon: jsonb(null),
      coupon_id: null,
      period_start: charge.kind === 'renewal' ? charge.period_start : own,
      period_end: charge.period_end,
      // The subscription's own time: under a test clock the order is paid when the simulated renewal happens.
      paid_at: own,
      confirmed_at: null,
      refunded_at: null,
      refunded_amount: null,
      provider: providerName,
      provider_payment_key: result.paymentKey || null,
      subscription_id: sub.id,
      subscription_event: event,
      settlement_id: null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await repo.updateCharge(trx, charge.id, { status: 'succeeded', locked_until: null, error_code: null, error_message: null, updated_at: now });

  let updated: SubscriptionRow;
  if (sub.status === 'ended') {
    // Ended (an immediate cancel) while this charge was with the gateway: the money was taken, so the order is
    // recorded and announced for the seller to refund, but an ended subscription never comes back.
    deps.log.warn({ subscriptionId: sub.id, orderId: order.id }, 'a charge succeeded for a subscription that ended meanwhile');
    updated = await repo.updateSubscription(trx, sub.id, { latest_order_id: order.id, updated_at: now });
  } else if (charge.kind === 'renewal') {
    updated = await repo.updateSubscription(trx, sub.id, {
      status: 'active',
      plan_id: target.planId,
      billing_interval: target.interval,
      amount: target.amount,
      current_period_start: charge.period_start,
      current_period_end: charge.period_end,
      pending_plan: charge.attempt === 0 ? jsonb(null) : undefined,
      latest_order_id: order.id,
      dunning_attempts: 0,
      next_retry_at: null,
      updated_at: now,
    });
  } else {
    updated = await repo.updateSubscription(trx, sub.id, {
      plan_id: target.planId,
      billing_interval: target.interval,
      amount: target.amount,
      pending_plan: jsonb(null),
      latest_order_id: order.id,
      updated_at: now,
    });
  }
  // Renewals extend the subscription's licenses to the new period end (issue-on-payment finds them by subscription).
  if (sub.status !== 'ended') await issueLicensesForOrder(trx, deps, order.id);
  await writeEvent(trx, deps.clock, {
    storeId: sub.store_id,
    mode: sub.mode,
    type: 'order.paid',
    data: { ...(await orderViewOf(trx, deps, order)), subscriptionEvent: event, subscriptionId: sub.id },
  });
  if (sub.status === 'ended') return order.id;
  if (charge.kind === 'renewal') {
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'period_renewed',
      orderId: order.id,
      periodStart: charge.period_start.toISOString(),
      periodEnd: charge.period_end.toISOString(),
      recovered: charge.attempt > 0,
    });
  } else {
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'plan_changed',
      timing: 'now',
      orderId: order.id,
      from: { planId: sub.plan_id, billingInterval: sub.billing_interval, amount: Number(sub.amount) },
      to: { planId: target.planId, billingInterval: target.interval, amount: target.amount },
    });
  }
  return order.id;
}

/**
 * A renewal charge failed. The first failure moves the subscription into the new (unpaid) period as `past_due`;
 * each failure schedules the next retry (DUNNING_RETRY_DAYS after the period start); after the last one it ends.
 */
async function renewalFailed(trx: Db, deps: Deps, sub: SubscriptionRow, charge: SubscriptionChargeRow, outcome: { code: string; message: string }, now: Date): Promise<void> {
  const target = charge.target ?? { planId: sub.plan_id, interval: sub.billing_interval, amount: Number(sub.amount) };
  const retryNumber = charge.attempt + 1;
  const retryAt = nextRetryAt(charge.period_start, retryNumber);
  const base = {
    ...(charge.attempt === 0
      ? {
          current_period_start: charge.period_start,
          current_period_end: charge.period_end,
          plan_id: target.planId,
          billing_interval: target.interval,
          amount: target.amount,
          pending_plan: jsonb(null),
        }
      : {}),
    updated_at: now,
  };
  if (retryAt) {
    const updated = await repo.updateSubscription(trx, sub.id, { ...base, status: 'past_due', dunning_attempts: retryNumber, next_retry_at: retryAt });
    await writeSubscriptionUpdated(trx, deps.clock, updated, {
      kind: 'payment_failed',
      attempt: charge.attempt,
      errorCode: outcome.code,
      errorMessage: outcome.message,
      nextRetryAt: retryAt.toISOString(),
    });
    return;
  }
  const moved = await repo.updateSubscription(trx, sub.id, { ...base, dunning_attempts: retryNumber });
  await endSubscription(trx, deps, moved, 'payment_failed', subscriptionNow(sub, now));
}

/**
 * Ends a subscription (final): `subscription.ended` with its endReason, and its licenses expire now (service clock)
 * unless they already have. Call inside the transaction holding the subscription's lock.
 */
export async function endSubscription(trx: Db, deps: Pick<Deps, 'clock'>, sub: SubscriptionRow, reason: EndReason, endedAt: Date): Promise<SubscriptionRow> {
  const now = deps.clock.now();
  const ended = await repo.updateSubscription(trx, sub.id, { status: 'ended', end_reason: reason, ended_at: endedAt, next_retry_at: null, updated_at: now });
  await trx
    .updateTable('licenses')
    .set({ expires_at: now, updated_at: now })
    .where('subscription_id', '=', sub.id)
    .where('status', '<>', 'revoked')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  await writeSubscriptionEnded(trx, deps.clock, ended);
  return ended;
}

export { subscriptionView };
