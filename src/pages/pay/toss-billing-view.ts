import type { CheckoutAttempt } from '../../checkout/tables';
import { html } from '../html';
import { tossWindowPage } from './toss-view';
import { cancelLink, footerOf, header, summary, type PageContext, type PriceLine } from './views';
import { payCopy } from './copy';
import { portalCopy } from '../portal/copy';
import { langSwitch, type Lang } from '../lang';

/** The arguments of `payment.requestBillingAuth(...)` in Toss Payments' JavaScript SDK v2 (card registration for 자동결제). */
export function tossBillingAuthRequest(ctx: PageContext, attempt: CheckoutAttempt, baseUrl: string) {
  const base = `${baseUrl}/pay/${encodeURIComponent(ctx.session.id)}/toss`;
  return {
    method: 'CARD',
    successUrl: `${base}/billing-success`,
    failUrl: `${base}/fail`,
    customerEmail: attempt.buyerEmail,
    customerName: attempt.buyerName,
  };
}

/**
 * Live subscriptions: Toss's billing-auth flow as its docs prescribe — `TossPayments(clientKey).payment({ customerKey })
 * .requestBillingAuth({ method: 'CARD', successUrl, failUrl })`. The buyer registers the card in Toss's window; Toss sends
 * them to /toss/billing-success with `authKey` and `customerKey`, where the server issues the billing key and charges the
 * first payment to it (the amount never comes from the browser).
 */
export function tossBillingLaunchPage(ctx: PageContext, price: PriceLine, attempt: CheckoutAttempt, clientKey: string, customerKey: string, baseUrl: string, nonce: string): string {
  const c = payCopy(ctx.lang);
  return tossWindowPage({
    call: 'requestBillingAuth',
    clientKey,
    customerKey,
    request: tossBillingAuthRequest(ctx, attempt, baseUrl),
    nonce,
    title: c.toss.billingTitle(ctx.product.name),
    heading: c.toss.billingHeading,
    text: ctx.session.trial_days ? c.toss.billingTrial(ctx.session.trial_days) : c.toss.billingText,
    button: c.toss.billingButton,
    openFailed: c.toss.billingOpenFailed,
    loadFailed: c.toss.billingLoadFailed,
    // The store's header with the language switch (back to the form in the other language; same order id).
    before: html`${header(ctx)}${summary(ctx, price)}`,
    links: html`<a class="cancel" href="/pay/${encodeURIComponent(ctx.session.id)}">${c.toss.edit}</a>
  ${cancelLink(ctx.session, c)}`,
    footer: footerOf(ctx),
    lang: c.lang,
  });
}

/**
 * The portal's card change with Toss (any mode whose gateway is Toss): the same billing-auth window, for the
 * subscription's own `customerKey`. Toss returns to /portal/{token}/card/{state}/success (or /fail); the state is
 * single-use and bound to this portal session, so only this visit's redirect can register a card.
 */
export function portalCardLaunchPage(p: {
  storeName: string;
  productName: string;
  clientKey: string;
  customerKey: string;
  buyerName: string;
  buyerEmail: string;
  returnBase: string;
  portalPath: string;
  nonce: string;
  lang?: Lang;
  /** This page's address (path and query) for the language switch; none when absent. */
  here?: string;
}): string {
  const c = portalCopy(p.lang);
  const k = c.cardLaunch;
  return tossWindowPage({
    call: 'requestBillingAuth',
    clientKey: p.clientKey,
    customerKey: p.customerKey,
    request: { method: 'CARD', successUrl: `${p.returnBase}/success`, failUrl: `${p.returnBase}/fail`, customerEmail: p.buyerEmail, customerName: p.buyerName },
    nonce: p.nonce,
    title: k.title,
    heading: k.heading,
    text: k.text(html`<span translate="no">${p.productName}</span>`),
    button: k.button,
    openFailed: k.openFailed,
    loadFailed: k.loadFailed,
    before: portalCardHeader(p.storeName, c.lang, p.here),
    links: html`<a class="cancel" href="${p.portalPath}">${c.toPortal}</a>`,
    lang: c.lang,
  });
}

/** The portal card window's store header: the store's own name and the language switch (the same launch page, same state). */
export function portalCardHeader(storeName: string, lang: Lang, here?: string) {
  return html`<div class="store"><span translate="no">${storeName}</span>${here ? html`<span class="tools">${langSwitch(here, lang)}</span>` : ''}</div>`;
}
