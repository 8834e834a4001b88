/**
 * What the payment page's handlers share: the form rendered with its price and recurring terms, the pages for a
 * session that cannot take a payment now (`gate`), and a payment taken and its result shown (`pay`, `renderResult`).
 * The handlers are in handlers.ts (the form, test-mode approval) and toss-return.ts (Toss's return URLs).
 */
import type { AppDeps } from '../../deps';
import { completePayment } from '../../checkout/complete';
import { type PayResult } from '../../checkout/pay-result';
import { sessionStatus, successRedirectUrl, type SessionRow } from '../../checkout/model';
import type { CheckoutAttempt } from '../../checkout/tables';
import { METHODS, type FieldErrors, type FormValues } from '../form';
import type { PaymentMethod } from '../../payments/method';
import { isForeignMethod } from '../../payments/foreign';
import { presentmentFor } from '../../checkout/foreign';
import { couponCanApply } from '../../checkout/quote';
import { mandatoryCashReceiptApplies } from '../../checkout/cash-receipt';
import { loadPage, priceQuote, sessionOrder, type LoadedPage } from './service';
import { paymentFormPage, type PriceLine } from './views';
import { receipt, statusPage } from '../status-page';
import { declineMessage, OWN_REFUSALS, outcomePages, type PageResponse } from './outcome';
import { recurringTerms, type RecurringTerms } from '../../subscriptions/consent';
import { latestChangeOfPlan } from '../../subscriptions/price-change/repo';
import { virtualAccountIssuedPage } from './virtual-account-issued';
import { payCopy } from './copy';
import type { Lang } from '../lang';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

export const payPath = (id: string) => `/pay/${encodeURIComponent(id)}`;

/**
 * The methods the page offers: every one for a one-time purchase; for a subscription or a trial only those the
 * provider says leave a billing key (its capability), since renewals charge that key. validateBuyer and the submit
 * handler still refuse the others (a hand-made POST), but the page no longer offers what it would then refuse.
 */
export function offeredMethods(page: Pick<LoadedPage, 'session' | 'provider'> & Partial<Pick<LoadedPage, 'foreign'>>): PaymentMethod[] {
  // Methods for buyers abroad only where the store enabled them (each needs its own contract with Toss).
  const all = METHODS.map((m) => m.value).filter((m) => !isForeignMethod(m) || (page.foreign?.methods ?? []).includes(m));
  if (!page.session.billing_interval) return all;
  const able = page.provider?.billingKeyMethods ?? [];
  return all.filter((m) => able.includes(m));
}

export function send(status: number, html: string, headers?: Record<string, string>): PageResponse {
  return { status, html, headers };
}

export const emptyValues = (s: SessionRow): FormValues => ({
  buyerName: s.customer_name ?? '',
  buyerEmail: s.customer_email ?? '',
  buyerPhone: s.customer_phone ?? '',
  method: 'card',
  cardNumber: '',
  couponCode: '',
  installment: '',
  agreeTerms: false,
  agreePrivacy: false,
  agreeThirdParty: false,
  agreeRecurring: false,
});

/** The payment page's shared steps, bound to `deps`. */
export function payFlow(deps: Deps) {
  /** A subscription's recurring terms as the page states them (from the session's sold terms); undefined otherwise. */
  const recurringOf = async (page: LoadedPage, dueNow: number): Promise<RecurringTerms | undefined> => {
    const s = page.session;
    if (!s.billing_interval) return undefined;
    // A price change of this plan already scheduled: the buyer is shown, and consents to, the future price too.
    const c = s.plan_id ? await latestChangeOfPlan(deps.db, s.product_id, s.plan_id) : undefined;
    const newAmount = c && c.store_id === s.store_id && c.mode === s.mode ? (s.billing_interval === 'monthly' ? c.monthly_price : c.yearly_price) : null;
    const change = c && newAmount !== null && newAmount !== undefined ? { id: c.id, effectiveAt: c.effective_at, amount: Number(newAmount) } : null;
    return recurringTerms({ amount: s.amount, billing_interval: s.billing_interval, trial_days: s.trial_days }, dueNow, deps.clock.now(), change);
  };

  async function renderForm(status: number, page: LoadedPage, typed: FormValues, opts: { errors?: FieldErrors; banner?: string; couponApplied?: boolean } = {}) {
    // The card number is never sent back to the browser, whatever went wrong (decline, checksum, another field).
    const values: FormValues = { ...typed, cardNumber: '' };
    const q = await priceQuote(deps, page, values.couponCode || null);
    const errors: FieldErrors = { ...opts.errors };
    let price: PriceLine = { originalAmount: page.session.amount, discount: 0, amount: page.session.amount, couponCode: null };
    if (q.ok) price = { originalAmount: q.originalAmount, discount: q.discount, amount: q.amount, couponCode: q.coupon?.code ?? null };
    else errors.couponCode ??= q.message;
    const recurring = await recurringOf(page, price.amount);
    const now = deps.clock.now();
    // A code typed (or refused) stays on the page with its message, whatever else holds.
    const couponField = !!values.couponCode || !!errors.couponCode || (await couponCanApply(deps.db, page.session, now));
    const cashReceiptMandatory = !page.session.billing_interval && (await mandatoryCashReceiptApplies(deps.db, page.session.store_id, price.amount));
    const methods = offeredMethods(page);
    const paypalCents = methods.includes('paypal') ? presentmentFor('paypal', price.amount, page.foreign)?.amount ?? null : null;
    return send(status, paymentFormPage({ ctx: page, price, values, errors, banner: opts.banner, couponApplied: opts.couponApplied, now, recurring, methods, couponField, cashReceiptMandatory, paypalCents }));
  }

  const notFound = (lang?: Lang) => {
    const c = payCopy(lang);
    return send(404, statusPage({ lang: c.lang, icon: '🔍', ...c.status.notFound }));
  };

  async function completedPage(page: LoadedPage) {
    const order = await sessionOrder(deps, page.session.order_id);
    const s = page.session;
    const c = payCopy(page.lang);
    // Back on the payment page while the 가상계좌 waits: the account again (nothing to pay twice), not "already paid".
    if (order?.status === 'awaiting_deposit' && order.virtualAccount) return send(200, virtualAccountIssuedPage(page, order));
    return send(
      409,
      statusPage({
        ctx: page,
        ...c.status.already,
        icon: '✅',
        extra: order ? receipt(order, c) : undefined,
        action: s.success_url && s.order_id ? { href: successRedirectUrl(s.success_url, s.order_id, s.id), label: c.status.backToStore } : undefined,
      }),
    );
  }

  /** Pages for a session that cannot take a payment now; null when it can. */
  async function gate(page: LoadedPage) {
    const s = page.session;
    const c = payCopy(page.lang);
    const status = sessionStatus(s, deps.clock.now());
    if (status === 'completed') return completedPage(page);
    if (s.payment?.state === 'unknown') return checkingPage(page);
    if (s.payment?.state === 'confirming') {
      return send(
        202,
        statusPage({ ctx: page, ...c.status.processing, icon: '⏳', refreshUrl: payPath(s.id) }),
      );
    }
    if (status === 'expired') {
      return send(
        410,
        statusPage({
          ctx: page,
          ...c.status.expired,
          icon: '⏰',
          action: s.cancel_url ? { href: s.cancel_url, label: c.status.backToStore } : undefined,
        }),
      );
    }
    if (!page.provider) {
      return send(503, statusPage({ ctx: page, ...c.status.unavailable, icon: '⚠️' }));
    }
    return null;
  }

  const { checkingPage, checkedOutcome } = outcomePages(deps, send);

  async function renderResult(page: LoadedPage, values: FormValues, r: PayResult) {
    const c = payCopy(page.lang);
    switch (r.kind) {
      case 'paid': {
        const s = r.session;
        // An issued 가상계좌 is not a payment yet: the buyer sees where, how much and by when before going onward.
        // The session is completed either way (no further attempt can charge it), so its attempt count is released.
        if (r.order.status === 'awaiting_deposit' && r.order.virtualAccount) return { ...send(200, virtualAccountIssuedPage(page, r.order)), paid: true };
        if (s.success_url) return { redirect: successRedirectUrl(s.success_url, r.order.id, s.id), paid: true };
        return { ...send(200, statusPage({ ctx: page, title: c.status.paid.title, icon: '✅', message: c.status.paid.message, extra: receipt(r.order, c) })), paid: true };
      }
      case 'not_found':
        return notFound(page.lang);
      case 'unavailable': {
        const soldOut = r.code === 'SOLD_OUT';
        return send(
          409,
          statusPage({
            ctx: page,
            ...(soldOut ? c.status.soldOut : c.status.discontinued),
            icon: '📦',
            action: page.session.cancel_url ? { href: page.session.cancel_url, label: c.status.backToStore } : undefined,
          }),
        );
      }
      case 'refused': {
        if (!OWN_REFUSALS.has(r.code)) return renderForm(422, page, values, { banner: c.lang === 'ko' ? declineMessage(values.method, r.message) : c.decline(values.method, r.message) });
        const onField = r.field && (r.field !== 'cardNumber' || page.simulated);
        return renderForm(422, page, values, onField ? { errors: { [r.field!]: r.message } } : { banner: r.message });
      }
      default: {
        // completed, expired, processing, checking: the session moved on meanwhile; show what it is now.
        const loaded = await loadPage(deps, page.session.id);
        const fresh = loaded && { ...loaded, lang: page.lang, here: page.here };
        return fresh ? ((await gate(fresh)) ?? renderForm(200, fresh, values)) : notFound(page.lang);
      }
    }
  }

  async function pay(page: LoadedPage, values: FormValues, attempt: CheckoutAttempt, paymentKey: string | null, amount: number, billingAuthKey: string | null = null, firstChargeByBillingKey = false, expectedPresentment: number | null = null) {
    const r = await completePayment(deps, { sessionId: page.session.id, attempt, provider: page.provider!, tossKeyPair: page.tossKeyPair, paymentKey, expectedAmount: amount, billingAuthKey, firstChargeByBillingKey, expectedPresentment });
    return renderResult(page, values, r);
  }

  return { recurringOf, renderForm, notFound, completedPage, gate, checkingPage, checkedOutcome, renderResult, pay };
}
export type PayFlow = ReturnType<typeof payFlow>;
