import type { AppDeps } from '../../deps';
import { jsonb } from '../../db';
import { ApiError } from '../../platform/errors';
import { MESSAGES } from '../../platform/messages';
import { CONSENT_VERSION, TRIAL_CONSENT_WINDOW_DAYS, kstDate } from '../consent';
import { writeSubscriptionUpdated } from '../events';
import { isTrialing, subscriptionNow, type SubscriptionRow } from '../model';
import * as repo from '../repo';
import type { BillingInterval } from '../tables';

/**
 * Trials longer than 30 days (전자상거래법 제13조⑥, 시행령 제20조의2). We chose to ask again rather than refuse such
 * trials: sellers offer them (up to 365 days) and the law allows them, but the checkout's consent is then more than
 * 30 days before the first charge, so it cannot stand for the conversion. The rules:
 * - the conversion notice (trial-notices.ts, TRIAL_NOTICE_DAYS before the end) asks for a fresh consent
 *   (`trial_will_end` with `consentRequired: true`), and the portal shows a button from 30 days before the trial's end
 *   until its end;
 * - the consent is kept word for word with its time (the subscription's clock) and CONSENT_VERSION (`trial_consent`),
 *   announced as `trial_consent_given`;
 * - at the trial's end, without a consent given inside those 30 days, the subscription ends with
 *   `endReason: trial_not_confirmed` and nothing is charged.
 * Trials of 30 days or less are covered by the checkout's consent (given within 30 days of the first charge).
 */
const DAY_MS = 86_400_000;
const WINDOW_MS = TRIAL_CONSENT_WINDOW_DAYS * DAY_MS;

type TrialRow = Pick<SubscriptionRow, 'status' | 'trial_ends_at' | 'current_period_start' | 'started_at' | 'trial_consent'>;

/** A trial longer than 30 days: its first charge needs a consent given within the 30 days before it. */
export function needsFreshTrialConsent(sub: Pick<SubscriptionRow, 'trial_ends_at' | 'started_at'>): boolean {
  return sub.trial_ends_at !== null && sub.trial_ends_at.getTime() - sub.started_at.getTime() > WINDOW_MS;
}

/** When the buyer may give it: from 30 days before the trial's end. */
export function trialConsentOpensAt(sub: Pick<SubscriptionRow, 'trial_ends_at'>): Date {
  return new Date(sub.trial_ends_at!.getTime() - WINDOW_MS);
}

/** Does a consent given inside the window exist? */
export function hasFreshTrialConsent(sub: TrialRow): boolean {
  if (!sub.trial_consent || !sub.trial_ends_at) return false;
  const at = new Date(sub.trial_consent.consentedAt);
  return at >= trialConsentOpensAt(sub) && at < sub.trial_ends_at;
}

/** The renewal at a long trial's end may not charge: no fresh consent (the renewal ends it, `trial_not_confirmed`). */
export function trialConversionBlocked(sub: TrialRow): boolean {
  return isTrialing(sub) && needsFreshTrialConsent(sub) && !hasFreshTrialConsent(sub);
}

export function trialConsentText(sub: { trial_ends_at: Date; amount: number; billing_interval: BillingInterval }): string {
  const cycle = sub.billing_interval === 'monthly' ? '매월' : '매년';
  return `무료 체험이 끝나는 ${kstDate(sub.trial_ends_at)}부터 ${cycle} ${Number(sub.amount).toLocaleString('ko-KR')}원이 등록한 카드로 자동 결제되는 유료 전환에 동의합니다. 체험 종료 전에 구독 관리 페이지에서 해지하면 결제되지 않습니다.`;
}

/** What the portal shows for a long trial: null when nothing is asked. */
export interface TrialConsentState {
  opensAt: string;
  trialEndsAt: string;
  open: boolean;
  consentedAt: string | null;
  text: string;
}

export function trialConsentState(sub: SubscriptionRow, own: Date): TrialConsentState | null {
  if (!isTrialing(sub) || !needsFreshTrialConsent(sub) || sub.cancel_at_period_end) return null;
  const opens = trialConsentOpensAt(sub);
  return {
    opensAt: opens.toISOString(),
    trialEndsAt: sub.trial_ends_at!.toISOString(),
    open: own >= opens && own < sub.trial_ends_at!,
    consentedAt: hasFreshTrialConsent(sub) ? sub.trial_consent!.consentedAt : null,
    text: trialConsentText({ trial_ends_at: sub.trial_ends_at!, amount: Number(sub.amount), billing_interval: sub.billing_interval }),
  };
}

/** The buyer confirms the conversion in the portal (inside the window only). Confirming twice writes nothing new. */
export async function acceptTrialConversion(deps: Pick<AppDeps, 'db' | 'clock'>, subscriptionId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const sub = await repo.lockSubscription(trx, subscriptionId);
    if (!sub) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
    const own = subscriptionNow(sub, deps.clock.now());
    const state = trialConsentState(sub, own);
    if (!state || !state.open) throw new ApiError('BAD_REQUEST', { message: MESSAGES.subscriptions.trialConsentNotOpen });
    if (state.consentedAt) return;
    const consent = { text: state.text, consentedAt: own.toISOString(), version: CONSENT_VERSION };
    const updated = await repo.updateSubscription(trx, sub.id, { trial_consent: jsonb(consent), updated_at: deps.clock.now() });
    await writeSubscriptionUpdated(trx, deps.clock, updated, { kind: 'trial_consent_given', trialEndsAt: state.trialEndsAt, amount: Number(sub.amount), consentedAt: consent.consentedAt });
  });
}
