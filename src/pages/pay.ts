import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../deps';
import { completePayment } from '../checkout/complete';
import { type PayResult } from '../checkout/pay-result';
import { withMandatoryCashReceipt } from '../checkout/cash-receipt';
import { sessionStatus, successRedirectUrl, type SessionRow } from '../checkout/model';
import type { CheckoutAttempt } from '../checkout/tables';
import { readForm, validateBuyer, valuesFromAttempt, type FieldErrors, type FormValues } from './form';
import { loadPage, priceQuote, saveAttempt, sessionOrder, type LoadedPage } from './service';
import { approvalPage, paymentFormPage, type PriceLine } from './views';
import { receipt, statusPage } from './status-page';
import { declineMessage, OWN_REFUSALS, outcomePages, type PageResponse } from './pay-outcome';
import { tossLaunchPage } from './toss-view';
import { tossBillingLaunchPage } from './toss-billing-view';
import { subscriptionIdForSession } from '../subscriptions/model';
import { MESSAGES } from '../platform/messages';
import { recurringTerms, type RecurringTerms } from '../subscriptions/consent';
import { latestChangeOfPlan } from '../subscriptions/price-change-repo';
import { sameEmail, trialAlreadyTaken } from '../subscriptions/trial-once';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

const HTML = 'text/html; charset=utf-8';
const payPath = (id: string) => `/pay/${encodeURIComponent(id)}`;

export type { PageResponse };

function send(status: number, html: string, headers?: Record<string, string>): PageResponse {
  return { status, html, headers };
}

export function reply(r: FastifyReply, res: PageResponse) {
  if ('redirect' in res) return r.redirect(res.redirect, 303);
  if (res.headers) for (const [k, v] of Object.entries(res.headers)) r.header(k, v);
  return r.code(res.status).type(HTML).send(res.html);
}

const emptyValues = (s: SessionRow): FormValues => ({
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

/** The handlers of the hosted payment page. Each answers HTML; none throws for a buyer's mistake. */
export function payHandlers(deps: Deps) {
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
    return send(status, paymentFormPage({ ctx: page, price, values, errors, banner: opts.banner, couponApplied: opts.couponApplied, now: deps.clock.now(), recurring }));
  }

  const notFound = () =>
    send(404, statusPage({ title: '결제 페이지를 찾을 수 없습니다', icon: '🔍', message: '주소가 올바른지 확인해 주세요. 결제는 상점에서 다시 시작할 수 있습니다.' }));

  async function completedPage(page: LoadedPage) {
    const order = await sessionOrder(deps, page.session.order_id);
    const s = page.session;
    return send(
      409,
      statusPage({
        ctx: page,
        ...(order?.status === 'awaiting_deposit'
          ? { title: '가상계좌가 발급되었습니다', icon: '⏳', message: '입금 기한까지 아래 계좌로 결제 금액을 입금하면 결제가 완료됩니다. 다시 결제하지 않아도 됩니다.' }
          : { title: '이미 결제가 완료되었습니다', icon: '✅', message: '이 결제 페이지의 결제는 이미 완료되었습니다. 다시 결제되지 않습니다.' }),
        extra: order ? receipt(order) : undefined,
        action: s.success_url && s.order_id ? { href: successRedirectUrl(s.success_url, s.order_id, s.id), label: '상점으로 돌아가기' } : undefined,
      }),
    );
  }

  /** Pages for a session that cannot take a payment now; null when it can. */
  async function gate(page: LoadedPage) {
    const s = page.session;
    const status = sessionStatus(s, deps.clock.now());
    if (status === 'completed') return completedPage(page);
    if (s.payment?.state === 'unknown') return checkingPage(page);
    if (s.payment?.state === 'confirming') {
      return send(
        202,
        statusPage({ ctx: page, title: '결제를 처리하고 있습니다', icon: '⏳', message: '잠시만 기다려 주세요. 이 화면은 자동으로 새로 고쳐집니다.', refreshUrl: payPath(s.id) }),
      );
    }
    if (status === 'expired') {
      return send(
        410,
        statusPage({
          ctx: page,
          title: '결제 시간이 만료되었습니다',
          icon: '⏰',
          message: '결제 페이지는 만든 뒤 30분 동안 사용할 수 있습니다. 상점에서 결제를 다시 시작해 주세요.',
          action: s.cancel_url ? { href: s.cancel_url, label: '상점으로 돌아가기' } : undefined,
        }),
      );
    }
    if (!page.provider) {
      return send(503, statusPage({ ctx: page, title: '지금은 결제할 수 없습니다', icon: '⚠️', message: '상점의 결제 설정이 완료되지 않았습니다. 잠시 후 다시 시도해 주세요.' }));
    }
    return null;
  }

  const { checkingPage, checkedOutcome } = outcomePages(deps, send);

  async function renderResult(page: LoadedPage, values: FormValues, r: PayResult) {
    switch (r.kind) {
      case 'paid': {
        const s = r.session;
        if (s.success_url) return { redirect: successRedirectUrl(s.success_url, r.order.id, s.id) };
        if (r.order.status === 'awaiting_deposit') {
          return send(200, statusPage({ ctx: page, title: '가상계좌가 발급되었습니다', icon: '⏳', message: '입금 기한까지 아래 계좌로 결제 금액을 입금하면 결제가 완료됩니다.', extra: receipt(r.order) }));
        }
        return send(200, statusPage({ ctx: page, title: '결제가 완료되었습니다', icon: '✅', message: '주문이 접수되었습니다.', extra: receipt(r.order) }));
      }
      case 'not_found':
        return notFound();
      case 'unavailable': {
        const soldOut = r.code === 'SOLD_OUT';
        return send(
          409,
          statusPage({
            ctx: page,
            title: soldOut ? '품절되었습니다' : '판매가 중단된 상품입니다',
            icon: '📦',
            message: soldOut ? '상품의 재고가 모두 소진되었습니다. 결제는 이루어지지 않았습니다.' : '판매자가 이 상품의 판매를 중단했습니다. 결제는 이루어지지 않았습니다.',
            action: page.session.cancel_url ? { href: page.session.cancel_url, label: '상점으로 돌아가기' } : undefined,
          }),
        );
      }
      case 'refused': {
        if (!OWN_REFUSALS.has(r.code)) return renderForm(422, page, values, { banner: declineMessage(values.method, r.message) });
        const onField = r.field && (r.field !== 'cardNumber' || page.simulated);
        return renderForm(422, page, values, onField ? { errors: { [r.field!]: r.message } } : { banner: r.message });
      }
      default: {
        // completed, expired, processing, checking: the session moved on meanwhile; show what it is now.
        const fresh = await loadPage(deps, page.session.id);
        return fresh ? ((await gate(fresh)) ?? renderForm(200, fresh, values)) : notFound();
      }
    }
  }

  async function pay(page: LoadedPage, values: FormValues, attempt: CheckoutAttempt, paymentKey: string | null, amount: number, billingAuthKey: string | null = null, firstChargeByBillingKey = false) {
    const r = await completePayment(deps, { sessionId: page.session.id, attempt, provider: page.provider!, tossKeyPair: page.tossKeyPair, paymentKey, expectedAmount: amount, billingAuthKey, firstChargeByBillingKey });
    return renderResult(page, values, r);
  }

  return {
    /** `checking` while the gateway's answer is being reconciled, `processing` during a confirm, else `done`. */
    async status(id: string): Promise<{ status: 'checking' | 'processing' | 'done' }> {
      const page = await loadPage(deps, id);
      const state = page?.session.status === 'open' ? page.session.payment?.state : undefined;
      return { status: state === 'unknown' ? 'checking' : state === 'confirming' ? 'processing' : 'done' };
    },

    async show(id: string, opts: { checking?: boolean } = {}) {
      const page = await loadPage(deps, id);
      if (!page) return notFound();
      if (opts.checking) {
        const outcome = await checkedOutcome(page);
        if (outcome) return outcome;
      }
      const blocked = await gate(page);
      if (blocked) return blocked;
      return renderForm(200, page, page.session.attempt ? valuesFromAttempt(page.session.attempt) : emptyValues(page.session));
    },

    async submit(id: string, body: unknown) {
      const page = await loadPage(deps, id);
      if (!page) return notFound();
      const blocked = await gate(page);
      if (blocked) return blocked;
      const form = readForm(body);
      const { action: _action, decision: _decision, ...values } = form;
      if (form.action === 'apply_coupon') {
        const q = await priceQuote(deps, page, values.couponCode || null);
        return renderForm(q.ok ? 200 : 422, page, values, { couponApplied: q.ok && !!values.couponCode });
      }
      const q = await priceQuote(deps, page, values.couponCode || null);
      const v = validateBuyer(values, {
        needCardNumber: page.simulated,
        amount: q.ok ? q.amount : page.session.amount,
        subscription: !!page.session.billing_interval,
        now: deps.clock.now(),
        recurring: await recurringOf(page, q.ok ? q.amount : page.session.amount),
      });
      // The seller fixed the e-mail: a different one is refused (the page shows it read-only; this is the server's word).
      if (page.session.customer_email_locked && !sameEmail(values.buyerEmail, page.session.customer_email)) {
        return renderForm(422, page, { ...values, buyerEmail: page.session.customer_email ?? '' }, { errors: { ...v.errors, buyerEmail: MESSAGES.checkout.customerEmailLocked } });
      }
      // renderForm re-quotes, so a bad coupon is shown next to the buyer's other mistakes.
      if (v.errors) return renderForm(422, page, values, { errors: v.errors });
      // A free trial taken before by this e-mail: said now, before the buyer registers a card (the card is checked too,
      // once the gateway names it, in completePayment).
      if (page.session.trial_days && (await trialAlreadyTaken(deps.db, { storeId: page.session.store_id, mode: page.session.mode, productId: page.session.product_id, email: v.attempt.buyerEmail, cardFingerprint: null }))) {
        return renderForm(422, page, values, { banner: MESSAGES.checkout.trialAlreadyUsed });
      }
      // A free trial is a card registration for the first charge at its end: simple pay registers no card here.
      if (page.session.trial_days && v.attempt.method !== 'card') return renderForm(422, page, values, { errors: { method: MESSAGES.checkout.trialNeedsCard } });
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      // 현금영수증 의무발행 (a store setting): 100,000원 or more by bank money is issued one even when the buyer chose none.
      const attempt = await withMandatoryCashReceipt(deps.db, page.session.store_id, v.attempt, q.amount);
      const entry = page.provider!.paymentEntry;

      if (entry.kind === 'on_page') {
        if (attempt.method !== 'card') {
          await saveAttempt(deps, page.session.id, attempt);
          return { redirect: `${payPath(page.session.id)}/approve` };
        }
        const auth = entry.authorize({ method: 'card', cardNumber: values.cardNumber, amount: q.amount, orderId: page.session.pending_order_id });
        if (!auth.ok) return renderForm(422, page, values, { errors: { [auth.field]: auth.message } });
        // A subscription keeps the card for renewals: the test card registration's auth key (see payments/README.md).
        const billingAuthKey = page.session.billing_interval ? `sim_auth_${values.cardNumber}` : null;
        return pay(page, values, attempt, auth.paymentKey, q.amount, billingAuthKey);
      }

      // Live: nothing to open for a fully discounted order; otherwise Toss's window takes the payment. A free trial
      // charges nothing too, but registers the card (billing-auth window) for the first charge at its end.
      if (q.amount === 0 && !page.session.trial_days) return pay(page, values, attempt, null, 0);
      if (!page.tossClientKey) return send(503, statusPage({ ctx: page, title: '지금은 결제할 수 없습니다', icon: '⚠️', message: '상점의 결제 설정이 완료되지 않았습니다.' }));
      await saveAttempt(deps, page.session.id, attempt);
      const nonce = randomBytes(16).toString('base64');
      const csp = `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic' https:; style-src 'self' 'unsafe-inline' https:; img-src 'self' data: https:; connect-src 'self' https:; frame-src https:; base-uri 'none'; frame-ancestors 'none'`;
      const price: PriceLine = { originalAmount: q.originalAmount, discount: q.discount, amount: q.amount, couponCode: q.coupon?.code ?? null };
      if (page.session.billing_interval) {
        // A subscription registers the card for 자동결제 (billing-auth window) instead of opening a one-off payment.
        const customerKey = subscriptionIdForSession(page.session.id);
        return send(200, tossBillingLaunchPage(page, price, attempt, page.tossClientKey, customerKey, deps.config.publicBaseUrl, nonce), { 'Content-Security-Policy': csp });
      }
      return send(200, tossLaunchPage(page, price, attempt, page.tossClientKey, deps.config.publicBaseUrl, nonce), { 'Content-Security-Policy': csp });
    },

    /** Test mode's simulated wallet approval (GET shows it, POST decides). */
    async approval(id: string, decision: 'show' | 'approve' | 'cancel') {
      const page = await loadPage(deps, id);
      if (!page) return notFound();
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = page.session.attempt;
      const entry = page.provider?.paymentEntry;
      if (entry?.kind !== 'on_page' || !attempt || attempt.method === 'card') return { redirect: payPath(id) };
      const values = valuesFromAttempt(attempt);
      const q = await priceQuote(deps, page, attempt.couponCode);
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      if (decision === 'show') return send(200, approvalPage(page, attempt.method, q.amount));
      const auth = entry.authorize({ method: attempt.method, approved: decision === 'approve', amount: q.amount, orderId: page.session.pending_order_id });
      if (!auth.ok) return renderForm(422, page, values, { errors: { method: auth.message } });
      return pay(page, values, attempt, auth.paymentKey, q.amount);
    },

    /** Toss's successUrl: confirm on the server, after checking the order id and that the amount is the session's. */
    async tossSuccess(id: string, query: Record<string, unknown>) {
      const page = await loadPage(deps, id);
      if (!page || page.provider?.name !== 'toss') return notFound();
      const s = page.session;
      // A reload of the success URL after the order exists lands where the first visit went.
      if (s.status === 'completed' && s.order_id) {
        if (s.success_url) return { redirect: successRedirectUrl(s.success_url, s.order_id, s.id) };
        return completedPage(page);
      }
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = s.attempt;
      if (!attempt) return renderForm(422, page, emptyValues(s), { banner: '결제 정보를 찾을 수 없습니다. 다시 결제해 주세요.' });
      const values = valuesFromAttempt(attempt);
      const paymentKey = typeof query.paymentKey === 'string' ? query.paymentKey : '';
      const amount = typeof query.amount === 'string' && /^\d{1,12}$/.test(query.amount) ? Number(query.amount) : NaN;
      if (!paymentKey || paymentKey.length > 200 || query.orderId !== s.pending_order_id || !Number.isSafeInteger(amount)) {
        deps.log.warn({ sessionId: s.id, orderId: query.orderId }, 'toss success redirect does not match the session');
        return renderForm(422, page, values, { banner: '결제 정보가 주문과 일치하지 않아 결제를 승인하지 않았습니다. 다시 결제해 주세요.' });
      }
      return pay(page, values, attempt, paymentKey, amount);
    },

    /**
     * Toss's billing-auth successUrl (live subscriptions): `authKey` and `customerKey` come back; the server issues the
     * billing key and charges the first payment to it for the session's own amount (never one from the query).
     */
    async tossBillingSuccess(id: string, query: Record<string, unknown>) {
      const page = await loadPage(deps, id);
      if (!page || page.provider?.name !== 'toss') return notFound();
      const s = page.session;
      if (s.status === 'completed' && s.order_id) {
        if (s.success_url) return { redirect: successRedirectUrl(s.success_url, s.order_id, s.id) };
        return completedPage(page);
      }
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = s.attempt;
      if (!attempt || !s.billing_interval) return renderForm(422, page, emptyValues(s), { banner: '결제 정보를 찾을 수 없습니다. 다시 결제해 주세요.' });
      const values = valuesFromAttempt(attempt);
      const authKey = typeof query.authKey === 'string' ? query.authKey : '';
      if (!authKey || authKey.length > 300 || query.customerKey !== subscriptionIdForSession(s.id)) {
        deps.log.warn({ sessionId: s.id }, 'toss billing-auth redirect does not match the session');
        return renderForm(422, page, values, { banner: '카드 등록 정보가 주문과 일치하지 않아 결제하지 않았습니다. 다시 시도해 주세요.' });
      }
      const q = await priceQuote(deps, page, attempt.couponCode);
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      return pay(page, values, attempt, null, q.amount, authKey, true);
    },

    /** Toss's failUrl: the window was closed or the payment refused; nothing was charged. */
    async tossFail(id: string, query: Record<string, unknown>) {
      const page = await loadPage(deps, id);
      if (!page) return notFound();
      const blocked = await gate(page);
      if (blocked) return blocked;
      const code = typeof query.code === 'string' ? query.code : '';
      const message = typeof query.message === 'string' && query.message ? query.message.slice(0, 300) : '';
      const banner = code === 'PAY_PROCESS_CANCELED' ? '결제를 취소했습니다.' : message || '결제가 완료되지 않았습니다. 다시 시도해 주세요.';
      const values = page.session.attempt ? valuesFromAttempt(page.session.attempt) : emptyValues(page.session);
      return renderForm(422, page, values, { banner });
    },
  };
}
