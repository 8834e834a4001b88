/**
 * The payment page of a store on PortOne (issue 42): the launch page (portone-view.ts) opened after our form is checked,
 * and the return URL the buyer comes back to, `/pay/{sessionId}/portone/return?paymentId=…[&code=…&message=…]`.
 *
 * Nothing the return URL carries is believed but the paymentId, and only when it is the session's own order id: the
 * payment is confirmed on the server by reading it back from PortOne (PortOneProvider.confirmPayment: status, amount,
 * KRW) against the session's own amount, never one from the query. completePayment's lock keeps a double submit (two
 * tabs, a reload, PortOne's redirect racing the page's) to one order.
 */
import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../../deps';
import { successRedirectUrl } from '../../checkout/model';
import type { CheckoutAttempt } from '../../checkout/tables';
import { valuesFromAttempt } from '../form';
import { html } from '../html';
import { statusPage } from '../status-page';
import { loadPage, priceQuote, saveAttempt, sessionOrder, type LoadedPage } from './service';
import { emptyValues, send, type PayFlow } from './flow';
import { portoneLaunchPage } from './portone-view';
import { portoneBillingLaunchPage } from './portone-billing-view';
import { subscriptionIdForSession } from '../../subscriptions/model';
import { payCopy } from './copy';
import { withView, type PageView } from './page-view';
import { VIRTUAL_ACCOUNT_VALID_HOURS } from './toss-view';
import { cancelLink, footerOf, header, summary, type PriceLine } from './views';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** The page that opens PortOne's window for a checked attempt, or a status page when the method has no channel key. */
export async function portoneLaunch(deps: Deps, page: LoadedPage, price: PriceLine, attempt: CheckoutAttempt) {
  const c = payCopy(page.lang);
  const channelKey = page.portone?.channelKeys[attempt.method];
  if (!page.portone || !channelKey) return send(503, statusPage({ ctx: page, title: c.status.unavailable.title, icon: '⚠️', message: c.portone.noChannel }));
  await saveAttempt(deps, page.session.id, attempt);
  const nonce = randomBytes(16).toString('base64');
  const csp = `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic' https:; style-src 'self' 'unsafe-inline' https:; img-src 'self' data: https:; connect-src 'self' https:; frame-src https:; base-uri 'none'; frame-ancestors 'none'`;
  const body = portoneLaunchPage({
    payment: {
      storeId: page.portone.storeId,
      channelKey,
      orderId: page.session.pending_order_id,
      orderName: page.product.name,
      amount: price.amount,
      method: attempt.method,
      installmentMonths: attempt.installmentMonths ? attempt.installmentMonths : null,
      buyer: { name: attempt.buyerName, email: attempt.buyerEmail, phone: attempt.buyerPhone || null },
      returnUrl: `${deps.config.publicBaseUrl}/pay/${encodeURIComponent(page.session.id)}/portone/return`,
      virtualAccountValidHours: VIRTUAL_ACCOUNT_VALID_HOURS,
    },
    nonce,
    lang: c.lang,
    title: c.title(page.product.name),
    // The store's header with the language switch (back to the form in the other language; same paymentId).
    before: html`${header(page)}${summary(page, price)}`,
    links: html`<a class="cancel" href="/pay/${encodeURIComponent(page.session.id)}">${c.toss.edit}</a>
  ${cancelLink(page.session, c)}`,
    footer: footerOf(page),
  });
  return send(200, body, { 'Content-Security-Policy': csp });
}

/**
 * A subscription or a free trial: the page that opens PortOne's card registration window (requestIssueBillingKey) with
 * the seller's card channel, for the subscription's own customer id; PortOne comes back to /portone/billing-return.
 */
export async function portoneBillingLaunch(deps: Deps, page: LoadedPage, price: PriceLine, attempt: CheckoutAttempt) {
  const c = payCopy(page.lang);
  const channelKey = page.portone?.channelKeys.card;
  if (!page.portone || !channelKey) return send(503, statusPage({ ctx: page, title: c.status.unavailable.title, icon: '⚠️', message: c.portoneBilling.noChannel }));
  await saveAttempt(deps, page.session.id, attempt);
  const nonce = randomBytes(16).toString('base64');
  const csp = `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic' https:; style-src 'self' 'unsafe-inline' https:; img-src 'self' data: https:; connect-src 'self' https:; frame-src https:; base-uri 'none'; frame-ancestors 'none'`;
  const body = portoneBillingLaunchPage({
    billing: {
      storeId: page.portone.storeId,
      channelKey,
      orderId: page.session.pending_order_id,
      issueName: c.toss.billingTitle(page.product.name),
      customerId: subscriptionIdForSession(page.session.id),
      buyer: { name: attempt.buyerName, email: attempt.buyerEmail, phone: attempt.buyerPhone || null },
      returnUrl: `${deps.config.publicBaseUrl}/pay/${encodeURIComponent(page.session.id)}/portone/billing-return`,
    },
    nonce,
    lang: c.lang,
    title: c.toss.billingTitle(page.product.name),
    trialDays: page.session.trial_days ?? null,
    // The store's header with the language switch (back to the form in the other language; same paymentId).
    before: html`${header(page)}${summary(page, price)}`,
    links: html`<a class="cancel" href="/pay/${encodeURIComponent(page.session.id)}">${c.toss.edit}</a>
  ${cancelLink(page.session, c)}`,
    footer: footerOf(page),
  });
  return send(200, body, { 'Content-Security-Policy': csp });
}

/** PortOne's return URL for the hosted payment page, sharing the page's steps (`flow`). */
export function portoneReturnHandlers(deps: Deps, flow: PayFlow) {
  const { renderForm, notFound, completedPage, gate, pay } = flow;
  return {
    async portoneReturn(id: string, query: Record<string, unknown>, view?: PageView) {
      const page = withView(await loadPage(deps, id), view);
      if (!page || page.provider?.name !== 'portone') return notFound();
      const s = page.session;
      // A reload after the order exists lands where the first visit went.
      if (s.status === 'completed' && s.order_id) {
        const order = await sessionOrder(deps, s.order_id);
        if (s.success_url && order?.status !== 'awaiting_deposit') return { redirect: successRedirectUrl(s.success_url, s.order_id, s.id) };
        return completedPage(page);
      }
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = s.attempt;
      if (!attempt) return renderForm(422, page, emptyValues(s), { banner: '결제 정보를 찾을 수 없습니다. 다시 결제해 주세요.' });
      const values = valuesFromAttempt(attempt);
      // PortOne's redirect carries `code`/`message` when the window ended without a payment (closed, refused).
      if (typeof query.code === 'string' && query.code) {
        // PortOne's message is Korean: shown on a Korean page; an English one says its own words.
        const message = page.lang !== 'en' && typeof query.message === 'string' && query.message ? query.message.slice(0, 300) : '결제가 완료되지 않았습니다. 다시 시도해 주세요.';
        return renderForm(422, page, values, { banner: message });
      }
      if (query.paymentId !== s.pending_order_id) {
        deps.log.warn({ sessionId: s.id }, 'portone return does not name the session\'s payment');
        return renderForm(422, page, values, { banner: '결제 정보가 주문과 일치하지 않아 결제를 승인하지 않았습니다. 다시 결제해 주세요.' });
      }
      // The amount is the session's own (with its coupon), never the query's; PortOne's record must match it.
      const q = await priceQuote(deps, page, attempt.couponCode);
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      return pay(page, values, attempt, s.pending_order_id, q.amount);
    },

    /**
     * PortOne's card registration came back (`billingKey`, or `code`/`message` when the window ended without one).
     * Nothing in it is believed: completePayment reads the key back from PortOne (ISSUED, this store, this
     * subscription's customer id) and charges the first payment to it, for the session's own amount, with the
     * session's order id as PortOne's paymentId (a free trial charges nothing). The session's lock and PortOne's one
     * payment per paymentId keep a replayed or doubled return to one charge; a return after the order exists lands
     * where the first went.
     */
    async portoneBillingReturn(id: string, query: Record<string, unknown>, view?: PageView) {
      const page = withView(await loadPage(deps, id), view);
      if (!page || page.provider?.name !== 'portone') return notFound();
      const s = page.session;
      if (s.status === 'completed' && s.order_id) {
        const order = await sessionOrder(deps, s.order_id);
        if (s.success_url && order?.status !== 'awaiting_deposit') return { redirect: successRedirectUrl(s.success_url, s.order_id, s.id) };
        return completedPage(page);
      }
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = s.attempt;
      if (!attempt || !s.billing_interval) return renderForm(422, page, emptyValues(s), { banner: '결제 정보를 찾을 수 없습니다. 다시 결제해 주세요.' });
      const values = valuesFromAttempt(attempt);
      if (typeof query.code === 'string' && query.code) {
        // PortOne's message is Korean: shown on a Korean page; an English one says its own words.
        const message = page.lang !== 'en' && typeof query.message === 'string' && query.message ? query.message.slice(0, 300) : '결제가 완료되지 않았습니다. 다시 시도해 주세요.';
        return renderForm(422, page, values, { banner: message });
      }
      const billingKey = typeof query.billingKey === 'string' ? query.billingKey : '';
      if (!billingKey || billingKey.length > 300) {
        deps.log.warn({ sessionId: s.id }, 'portone billing-key return carries no billing key');
        return renderForm(422, page, values, { banner: '카드 등록 정보가 주문과 일치하지 않아 결제하지 않았습니다. 다시 시도해 주세요.' });
      }
      const q = await priceQuote(deps, page, attempt.couponCode);
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      return pay(page, values, attempt, null, q.amount, billingKey, true);
    },
  };
}
