/**
 * The hosted payment page's handlers: its status poll, the page itself, the form's submission and test mode's
 * simple-pay approval; Toss's return URLs come from toss-return.ts. Shared steps: flow.ts.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../deps';
import { withMandatoryCashReceipt } from '../../checkout/cash-receipt';
import { readForm, validateBuyer, valuesFromAttempt } from '../form';
import { loadPage, priceQuote, saveAttempt } from './service';
import { approvalPage, type PriceLine } from './views';
import { statusPage } from '../status-page';
import { type PageResponse } from './outcome';
import { tossLaunchPage } from './toss-view';
import { tossBillingLaunchPage } from './toss-billing-view';
import { subscriptionIdForSession } from '../../subscriptions/model';
import { MESSAGES } from '../../platform/messages';
import { sameEmail, trialAlreadyTaken } from '../../subscriptions/trials/once';
import { emptyValues, offeredMethods, payFlow, payPath, send } from './flow';
import { presentmentFor } from '../../checkout/foreign';
import { isForeignMethod } from '../../payments/foreign';
import { tossReturnHandlers } from './toss-return';
import { chooseLang } from '../lang';
import { setOpenSessionLocale } from '../repo';
import { payCopy } from './copy';

export { withView, type PageView } from './page-view';
import { withView, type PageView } from './page-view';
import { portoneBillingLaunch, portoneLaunch, portoneReturnHandlers } from './portone-return';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

const HTML = 'text/html; charset=utf-8';

export type { PageResponse };

export function reply(r: FastifyReply, res: PageResponse) {
  if ('redirect' in res) return r.redirect(res.redirect, 303);
  if (res.headers) for (const [k, v] of Object.entries(res.headers)) r.header(k, v);
  return r.code(res.status).type(HTML).send(res.html);
}

/** The handlers of the hosted payment page. Each answers HTML; none throws for a buyer's mistake. */
export function payHandlers(deps: Deps) {
  const flow = payFlow(deps);
  const { recurringOf, renderForm, notFound, gate, checkedOutcome, pay } = flow;

  return {
    /** `checking` while the gateway's answer is being reconciled, `processing` during a confirm, else `done`. */
    async status(id: string): Promise<{ status: 'checking' | 'processing' | 'done' }> {
      const page = await loadPage(deps, id);
      const state = page?.session.status === 'open' ? page.session.payment?.state : undefined;
      return { status: state === 'unknown' ? 'checking' : state === 'confirming' ? 'processing' : 'done' };
    },

    async show(id: string, opts: { checking?: boolean; view?: PageView } = {}) {
      const page = withView(await loadPage(deps, id), opts.view);
      if (!page) return notFound(opts.view && chooseLang(opts.view.req).lang);
      if (opts.checking) {
        const outcome = await checkedOutcome(page);
        if (outcome) return outcome;
      }
      const blocked = await gate(page);
      if (blocked) return blocked;
      return renderForm(200, page, page.session.attempt ? valuesFromAttempt(page.session.attempt) : emptyValues(page.session));
    },

    /** `couponRetrySec`: the coupon-try limit is spent (routes.ts); a coupon application is answered without quoting the code. */
    async submit(id: string, body: unknown, opts: { couponRetrySec?: number; view?: PageView } = {}) {
      const page = withView(await loadPage(deps, id), opts.view);
      if (!page) return notFound(opts.view && chooseLang(opts.view.req).lang);
      const blocked = await gate(page);
      if (blocked) return blocked;
      const form = readForm(body);
      const { action: _action, decision: _decision, ...values } = form;
      if (form.action === 'apply_coupon') {
        if (opts.couponRetrySec !== undefined) {
          // The code is not looked up (no price change that would tell a guesser it exists); the rest of the form stays.
          const minutes = Math.max(1, Math.ceil(opts.couponRetrySec / 60));
          return { ...(await renderForm(429, page, { ...values, couponCode: '' }, { errors: { couponCode: MESSAGES.checkout.couponTriesLimited(minutes) } })), headers: { 'Retry-After': String(opts.couponRetrySec) } };
        }
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
      if (page.session.trial_days && (await trialAlreadyTaken(deps.db, { storeId: page.session.store_id, mode: page.session.mode, productId: page.session.product_id, email: v.attempt.buyerEmail, phone: v.attempt.buyerPhone, cardFingerprint: null }))) {
        return renderForm(422, page, values, { banner: MESSAGES.checkout.trialAlreadyUsed });
      }
      // A free trial is a card registration for the first charge at its end: simple pay registers no card here.
      if (page.session.trial_days && v.attempt.method !== 'card') return renderForm(422, page, values, { errors: { method: MESSAGES.checkout.trialNeedsCard } });
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      // The language the buyer pays in becomes the order's (receipt link, mails) unless the seller fixed one.
      await setOpenSessionLocale(deps.db, page.session.id, page.lang ?? 'ko');
      // 현금영수증 의무발행 (a store setting): 100,000원 or more by bank money is issued one even when the buyer chose none.
      const attempt = await withMandatoryCashReceipt(deps.db, page.session.store_id, v.attempt, q.amount);
      const entry = page.provider!.paymentEntry;

      // A method for buyers abroad the store has not enabled (a hand-made POST): refused before anything is authorized.
      if (isForeignMethod(attempt.method) && !offeredMethods(page).includes(attempt.method)) return renderForm(422, page, values, { errors: { method: MESSAGES.checkout.methodNotOffered } });

      if (entry.kind === 'on_page') {
        if (attempt.method !== 'card' && attempt.method !== 'foreign_card') {
          await saveAttempt(deps, page.session.id, attempt);
          return { redirect: `${payPath(page.session.id)}/approve` };
        }
        const auth = entry.authorize({ method: attempt.method, cardNumber: values.cardNumber, amount: q.amount, orderId: page.session.pending_order_id });
        if (!auth.ok) return renderForm(422, page, values, { errors: { [auth.field]: auth.message } });
        // A subscription keeps the card for renewals: the test card registration's auth key (see payments/README.md).
        const billingAuthKey = page.session.billing_interval ? `sim_auth_${values.cardNumber}` : null;
        return pay(page, values, attempt, auth.paymentKey, q.amount, billingAuthKey);
      }

      // Live: nothing to open for a fully discounted order; otherwise Toss's window takes the payment. A free trial
      // charges nothing too, but registers the card (billing-auth window) for the first charge at its end.
      if (q.amount === 0 && !page.session.trial_days) return pay(page, values, attempt, null, 0);
      if (page.provider!.name === 'portone') {
        const price: PriceLine = { originalAmount: q.originalAmount, discount: q.discount, amount: q.amount, couponCode: q.coupon?.code ?? null };
        // A subscription or a trial registers the card for 자동결제 (PortOne's billing-key window) instead of a one-off payment.
        if (page.session.billing_interval) return portoneBillingLaunch(deps, page, price, attempt);
        return portoneLaunch(deps, page, price, attempt);
      }
      if (!page.tossClientKey) return send(503, statusPage({ ctx: page, ...payCopy(page.lang).status.unavailable, icon: '⚠️' }));
      await saveAttempt(deps, page.session.id, attempt);
      const nonce = randomBytes(16).toString('base64');
      const csp = `default-src 'self'; script-src 'nonce-${nonce}' 'strict-dynamic' https:; style-src 'self' 'unsafe-inline' https:; img-src 'self' data: https:; connect-src 'self' https:; frame-src https:; base-uri 'none'; frame-ancestors 'none'`;
      const price: PriceLine = { originalAmount: q.originalAmount, discount: q.discount, amount: q.amount, couponCode: q.coupon?.code ?? null };
      if (page.session.billing_interval) {
        // A subscription registers the card for 자동결제 (billing-auth window) instead of opening a one-off payment.
        const customerKey = subscriptionIdForSession(page.session.id);
        return send(200, tossBillingLaunchPage(page, price, attempt, page.tossClientKey, customerKey, deps.config.publicBaseUrl, nonce), { 'Content-Security-Policy': csp });
      }
      const presentment = presentmentFor(attempt.method, q.amount, page.foreign);
      return send(200, tossLaunchPage(page, price, attempt, page.tossClientKey, deps.config.publicBaseUrl, nonce, presentment), { 'Content-Security-Policy': csp });
    },

    /** Test mode's simulated wallet approval (GET shows it, POST decides). */
    async approval(id: string, decision: 'show' | 'approve' | 'cancel', view?: PageView) {
      const page = withView(await loadPage(deps, id), view);
      if (!page) return notFound(view && chooseLang(view.req).lang);
      const blocked = await gate(page);
      if (blocked) return blocked;
      const attempt = page.session.attempt;
      const entry = page.provider?.paymentEntry;
      if (entry?.kind !== 'on_page' || !attempt || attempt.method === 'card' || attempt.method === 'foreign_card') return { redirect: payPath(id) };
      const values = valuesFromAttempt(attempt);
      const q = await priceQuote(deps, page, attempt.couponCode);
      if (!q.ok) return renderForm(422, page, values, { errors: { couponCode: q.message } });
      // PayPal: the buyer approves the USD amount (the simulator binds the key to it, as Toss's window does).
      const usd = presentmentFor(attempt.method, q.amount, page.foreign);
      if (decision === 'show') return send(200, approvalPage(page, attempt.method, q.amount, usd?.amount ?? null));
      const auth = entry.authorize({ method: attempt.method, approved: decision === 'approve', amount: usd?.amount ?? q.amount, orderId: page.session.pending_order_id });
      if (!auth.ok) return renderForm(422, page, values, { errors: { method: auth.message } });
      return pay(page, values, attempt, auth.paymentKey, q.amount, null, false, usd?.amount ?? null);
    },

    /** Toss's successUrl: confirm on the server, after checking the order id and that the amount is the session's. */

    ...tossReturnHandlers(deps, flow),
    ...portoneReturnHandlers(deps, flow),
  };
}
