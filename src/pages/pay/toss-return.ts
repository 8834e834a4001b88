/**
 * The payment page's answers to Toss's return URLs: successUrl (confirm on the server after checking order id and
 * amount), the billing-auth successUrl of live subscriptions (billing key, then the first charge), and failUrl.
 */
import type { AppDeps } from '../../deps';
import { successRedirectUrl } from '../../checkout/model';
import { valuesFromAttempt } from '../form';
import { loadPage, priceQuote, sessionOrder } from './service';
import { subscriptionIdForSession } from '../../subscriptions/model';
import { emptyValues, type PayFlow } from './flow';
import { minorAmount } from '../../payments/foreign';
import { withView, type PageView } from './page-view';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** Toss's return URLs for the hosted payment page, sharing the page's steps (`flow`). */
export function tossReturnHandlers(deps: Deps, flow: PayFlow) {
  const { renderForm, notFound, completedPage, gate, pay } = flow;
  /** A reload after the order exists lands where the first visit went: the seller's page, or the issued 가상계좌. */
  const reloaded = async (page: NonNullable<Awaited<ReturnType<typeof loadPage>>>) => {
    const s = page.session;
    const order = await sessionOrder(deps, s.order_id);
    if (s.success_url && order?.status !== 'awaiting_deposit') return { redirect: successRedirectUrl(s.success_url, s.order_id!, s.id) };
    return completedPage(page);
  };
  return {
    async tossSuccess(id: string, query: Record<string, unknown>, view?: PageView) {
      const page = withView(await loadPage(deps, id), view);
      if (!page || page.provider?.name !== 'toss') return notFound();
      const s = page.session;
      // A reload of the success URL after the order exists lands where the first visit went.
      if (s.status === 'completed' && s.order_id) return reloaded(page);
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = s.attempt;
      if (!attempt) return renderForm(422, page, emptyValues(s), { banner: '결제 정보를 찾을 수 없습니다. 다시 결제해 주세요.' });
      const values = valuesFromAttempt(attempt);
      const paymentKey = typeof query.paymentKey === 'string' ? query.paymentKey : '';
      // PayPal comes back with the USD amount the window charged (e.g. 28.89): read in cents, held against the won
      // price at the store's rate in completePayment; the won amount is the session's own.
      const paypal = attempt.method === 'paypal';
      const usdCents = paypal && typeof query.amount === 'string' && /^\d{1,10}(\.\d{1,2})?$/.test(query.amount) ? minorAmount(Number(query.amount), 'USD') : NaN;
      const quoted = paypal ? await priceQuote(deps, page, attempt.couponCode) : null;
      const amount = paypal ? (quoted?.ok && Number.isSafeInteger(usdCents) ? quoted.amount : NaN) : typeof query.amount === 'string' && /^\d{1,12}$/.test(query.amount) ? Number(query.amount) : NaN;
      if (!paymentKey || paymentKey.length > 200 || query.orderId !== s.pending_order_id || !Number.isSafeInteger(amount)) {
        deps.log.warn({ sessionId: s.id, orderId: query.orderId }, 'toss success redirect does not match the session');
        return renderForm(422, page, values, { banner: '결제 정보가 주문과 일치하지 않아 결제를 승인하지 않았습니다. 다시 결제해 주세요.' });
      }
      return pay(page, values, attempt, paymentKey, amount, null, false, paypal ? usdCents : null);
    },

    /**
     * Toss's billing-auth successUrl (live subscriptions): `authKey` and `customerKey` come back; the server issues the
     * billing key and charges the first payment to it for the session's own amount (never one from the query).
     */
    async tossBillingSuccess(id: string, query: Record<string, unknown>, view?: PageView) {
      const page = withView(await loadPage(deps, id), view);
      if (!page || page.provider?.name !== 'toss') return notFound();
      const s = page.session;
      if (s.status === 'completed' && s.order_id) return reloaded(page);
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
    async tossFail(id: string, query: Record<string, unknown>, view?: PageView) {
      const page = withView(await loadPage(deps, id), view);
      if (!page) return notFound();
      const blocked = await gate(page);
      if (blocked) return blocked;
      const code = typeof query.code === 'string' ? query.code : '';
      // Toss's message is Korean (and Toss documents no window language): shown on a Korean page; an English one says
      // its own words (the form's banner translates ours).
      const message = page.lang !== 'en' && typeof query.message === 'string' && query.message ? query.message.slice(0, 300) : '';
      const banner = code === 'PAY_PROCESS_CANCELED' ? '결제를 취소했습니다.' : message || '결제가 완료되지 않았습니다. 다시 시도해 주세요.';
      const values = page.session.attempt ? valuesFromAttempt(page.session.attempt) : emptyValues(page.session);
      return renderForm(422, page, values, { banner });
    },
  };
}
