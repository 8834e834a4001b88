import type { Db } from '../../db';
import { jsonb } from '../../db';
import type { Clock } from '../../platform/clock';
import { newId } from '../../platform/ids';
import { CONSENT_VERSION, kstDate } from '../consent';
import { writeSubscriptionUpdated } from '../events';
import type { SubscriptionRow } from '../model';
import * as repo from './repo';
import type { BillingInterval, RecurringConsent } from '../tables';

/**
 * Consent for every dearer charge (전자상거래법 제13조⑥ with 시행령 제20조의2: a higher recurring charge needs the buyer's
 * consent). The rules, in one place:
 * - A plan change the buyer did not ask for (the seller console's change-plan, and any seller path: `changePlan` takes
 *   who acts) that raises what the buyer pays, now (an upgrade's difference) or at renewal (a dearer plan or interval,
 *   or undoing a cheaper change the buyer scheduled), changes nothing and charges nothing: it becomes an offer,
 *   `subscription.updated` with `change.kind: plan_change_offered` (the mail outbox mails it with a portal link that
 *   opens until the deadline). The portal shows it with accept and decline.
 * - The buyer has OFFER_DAYS (the subscription's own clock) to accept. Accepting runs the change exactly as the buyer
 *   choosing it in the portal would at that moment (an upgrade charges the prorated difference then), with the
 *   sentence they agreed to recorded. Declined, withdrawn by the seller (or replaced by a newer offer), or not accepted
 *   by the deadline, it closes (`plan_change_offer_closed`) and nothing changes.
 * - Cheaper or equal changes need no consent and apply as before.
 * - The portal's own changes are the buyer's consent: each is recorded with its wording, time (the subscription's
 *   clock) and CONSENT_VERSION, and becomes the subscription's `recurringConsent`.
 */
export const OFFER_DAYS = 14;
const DAY_MS = 86_400_000;

const won = (n: number) => `${n.toLocaleString('ko-KR')}원`;
const CYCLE: Record<BillingInterval, string> = { monthly: '매월', yearly: '매년' };
export const INTERVAL_KO: Record<BillingInterval, string> = { monthly: '월간', yearly: '연간' };

export interface PlanSide {
  planId: string;
  planName: string;
  interval: BillingInterval;
  amount: number;
}

/** Does `target` make the buyer pay more than now or than the renewal they already chose? */
export function isDearer(sub: Pick<SubscriptionRow, 'amount' | 'pending_plan'>, targetAmount: number): boolean {
  const current = Number(sub.amount);
  const renewal = sub.pending_plan ? Math.min(current, sub.pending_plan.amount) : current;
  return targetAmount > renewal;
}

/** The sentence the buyer agrees to for a plan change (portal button or accepted offer). */
export function planChangeConsentText(c: { to: PlanSide; timing: 'now' | 'next_renewal'; difference: number; renewsAt: Date }): string {
  const plan = `${c.to.planName}(${INTERVAL_KO[c.to.interval]} ${won(c.to.amount)})`;
  const later = `${kstDate(c.renewsAt)}부터 ${CYCLE[c.to.interval]} ${won(c.to.amount)}이 등록한 카드로 자동 결제되는 것에 동의합니다. 구독 관리 페이지에서 언제든 해지할 수 있습니다.`;
  if (c.timing === 'now') {
    return `요금제를 지금 ${plan}(으)로 변경하고${c.difference > 0 ? `, 남은 기간의 차액 ${won(c.difference)}이 지금 결제되며` : ''}, ${later}`;
  }
  return `${kstDate(c.renewsAt)} 결제부터 요금제를 ${plan}(으)로 변경하고, ${later}`;
}

export function consentRecordOf(text: string, own: Date): RecurringConsent {
  return { text, consentedAt: own.toISOString(), version: CONSENT_VERSION };
}

/** What the API answers and events carry about an offer. */
export interface PlanOfferView {
  id: string;
  status: repo.PlanConsentRow['status'];
  from: { planId: string; billingInterval: BillingInterval; amount: number };
  to: { planId: string; billingInterval: BillingInterval; amount: number };
  offeredAt: string;
  deadline: string;
  resolvedAt: string | null;
}

export function planOfferView(r: repo.PlanConsentRow): PlanOfferView {
  return {
    id: r.id,
    status: r.status,
    from: { planId: r.from_plan_id, billingInterval: r.from_interval, amount: Number(r.from_amount) },
    to: { planId: r.plan_id, billingInterval: r.billing_interval, amount: Number(r.amount) },
    offeredAt: r.offered_at.toISOString(),
    deadline: r.deadline.toISOString(),
    resolvedAt: r.resolved_at ? r.resolved_at.toISOString() : null,
  };
}

/**
 * Records a seller's dearer change as an offer on a locked subscription (any earlier open offer is withdrawn: the
 * newer one replaces it) and announces it, in the caller's transaction. Nothing about the subscription changes.
 */
export async function createOffer(
  trx: Db,
  clock: Clock,
  sub: SubscriptionRow,
  target: { planId: string; interval: BillingInterval; amount: number; listPrices: { monthlyPrice: number | null; yearlyPrice: number | null } },
  own: Date,
  names: { from: string; to: string },
): Promise<repo.PlanConsentRow> {
  const earlier = await repo.pendingOffer(trx, sub.id, true);
  if (earlier) await closeOffer(trx, clock, sub, earlier, 'withdrawn', own);
  const row = await repo.insertPlanConsent(trx, {
    id: newId('pco', clock),
    subscription_id: sub.id,
    store_id: sub.store_id,
    mode: sub.mode,
    source: 'seller',
    from_plan_id: sub.plan_id,
    from_interval: sub.billing_interval,
    from_amount: Number(sub.amount),
    plan_id: target.planId,
    billing_interval: target.interval,
    amount: target.amount,
    list_prices: jsonb(target.listPrices),
    status: 'pending',
    offered_at: own,
    deadline: new Date(own.getTime() + OFFER_DAYS * DAY_MS),
    consent: jsonb(null),
    resolved_at: null,
    created_at: clock.now(),
  });
  const v = planOfferView(row);
  await writeSubscriptionUpdated(trx, clock, sub, {
    kind: 'plan_change_offered',
    offerId: row.id,
    from: { ...v.from, planName: names.from },
    to: { ...v.to, planName: names.to },
    timing: row.billing_interval === sub.billing_interval && Number(row.amount) > Number(sub.amount) ? 'now' : 'next_renewal',
    deadline: v.deadline,
  });
  return row;
}

/** Closes an open offer without a change (declined, withdrawn, lapsed) and announces it. */
export async function closeOffer(trx: Db, clock: Clock, sub: SubscriptionRow, offer: repo.PlanConsentRow, outcome: 'declined' | 'withdrawn' | 'lapsed', own: Date): Promise<void> {
  await repo.resolvePlanConsent(trx, offer.id, outcome, own);
  await writeSubscriptionUpdated(trx, clock, sub, { kind: 'plan_change_offer_closed', offerId: offer.id, outcome, to: planOfferView(offer).to });
}

/** Records the buyer's own portal change (their consent), accepted at once. */
export async function recordBuyerConsent(
  trx: Db,
  clock: Clock,
  sub: SubscriptionRow,
  target: { planId: string; interval: BillingInterval; amount: number; listPrices?: { monthlyPrice: number | null; yearlyPrice: number | null } },
  consent: RecurringConsent,
  own: Date,
): Promise<repo.PlanConsentRow> {
  return repo.insertPlanConsent(trx, {
    id: newId('pco', clock),
    subscription_id: sub.id,
    store_id: sub.store_id,
    mode: sub.mode,
    source: 'buyer',
    from_plan_id: sub.plan_id,
    from_interval: sub.billing_interval,
    from_amount: Number(sub.amount),
    plan_id: target.planId,
    billing_interval: target.interval,
    amount: target.amount,
    list_prices: jsonb(target.listPrices ?? null),
    status: 'accepted',
    offered_at: own,
    deadline: own,
    consent: jsonb(consent),
    resolved_at: own,
    created_at: clock.now(),
  });
}
