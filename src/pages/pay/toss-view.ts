import type { CheckoutAttempt } from '../../checkout/tables';
import { html, raw, scriptJson, type SafeHtml } from '../html';
import { layout } from '../layout';
import { gatewayAmount, type Presentment } from '../../payments/foreign';
import { cancelLink, footerOf, header, LANG_CSS, summary, type PageContext, type PriceLine } from './views';
import { payCopy } from './copy';
import type { Lang } from '../lang';

/** How long a virtual account waits for the deposit (Toss: validHours, at most 720; the order expires after). */
export const VIRTUAL_ACCOUNT_VALID_HOURS = 72;

export const TOSS_SDK_URL = 'https://js.tosspayments.com/v2/standard';

// Toss's direct wallet codes for `card.easyPay` (flowMode DIRECT opens that wallet without the card-company list).
const EASY_PAY = { kakao_pay: 'KAKAOPAY', naver_pay: 'NAVERPAY', toss: 'TOSSPAY' } as const;

const ONE_TIME_WINDOW_METHODS = { mobile_phone: 'MOBILE_PHONE', culture_gift: 'CULTURE_GIFT_CERTIFICATE', book_gift: 'BOOK_GIFT_CERTIFICATE', game_gift: 'GAME_GIFT_CERTIFICATE' } as const;

/** The arguments of `payment.requestPayment(...)` in Toss Payments' JavaScript SDK v2 (standard payment window). */
export function tossPaymentRequest(ctx: PageContext, attempt: CheckoutAttempt, amount: number, baseUrl: string, presentment: Presentment | null = null) {
  const base = `${baseUrl}/pay/${encodeURIComponent(ctx.session.id)}/toss`;
  const common = {
    amount: { currency: 'KRW', value: amount },
    orderId: ctx.session.pending_order_id,
    orderName: ctx.product.name.slice(0, 100),
    successUrl: `${base}/success`,
    failUrl: `${base}/fail`,
    customerEmail: attempt.buyerEmail,
    customerName: attempt.buyerName,
    customerMobilePhone: attempt.buyerPhone,
  };
  // 퀵계좌이체 (https://docs.tosspayments.com/sdk/v2/js#paymentrequestpayment, method TRANSFER): the window asks
  // the buyer's bank; confirmed on /toss/success like a card. No escrow: software is delivered at once.
  // 현금영수증 (`transfer.cashReceipt` / `virtualAccount.cashReceipt` { type: 소득공제 | 지출증빙 | 미발행 }): the window
  // takes the type only, never the number, so it is told 미발행 and the receipt asked on our page (the buyer's number,
  // or 의무발행 to 010-000-1234) is issued with that number through POST /v1/cash-receipts after the payment (a
  // 가상계좌's after its deposit): src/checkout/cash-receipt.ts. Never both, so never two receipts.
  const cashReceipt = { type: '미발행' };
  if (attempt.method === 'transfer') return { method: 'TRANSFER', ...common, transfer: { cashReceipt, useEscrow: false } };
  // 가상계좌 (method VIRTUAL_ACCOUNT): Toss issues an account; the order waits for the deposit (DEPOSIT_CALLBACK).
  if (attempt.method === 'virtual_account') return { method: 'VIRTUAL_ACCOUNT', ...common, virtualAccount: { cashReceipt, useEscrow: false, validHours: VIRTUAL_ACCOUNT_VALID_HOURS } };
  // PayPal (해외간편결제, https://docs.tosspayments.com/guides/v2/payment-widget/integration-paypal,
  // https://docs.tosspayments.com/guides/paypal): method FOREIGN_EASY_PAY, `foreignEasyPay.provider` PAYPAL, the amount in
  // USD with cents (the won price at the store's rate, fixed on our server). `country` is where the buyer pays from as
  // PayPal asks it; we do not know it, so KR (the merchant's) as Toss's samples allow.
  if (attempt.method === 'paypal') {
    if (!presentment) throw new Error('a PayPal window needs its USD amount');
    return { method: 'FOREIGN_EASY_PAY', ...common, amount: { currency: 'USD', value: gatewayAmount(presentment.amount, 'USD') }, foreignEasyPay: { provider: 'PAYPAL', country: 'KR' } };
  }
  // 해외카드: the multi-language card window for cards issued abroad (`useInternationalCardOnly: true`,
  // https://docs.tosspayments.com/guides/payment/international-window): Visa, Master, JCB, AMEX, UnionPay; charged in KRW
  // like any card, no 할부 (a Korean card company's plan) and no direct card-company call.
  if (attempt.method === 'foreign_card') return { method: 'CARD', ...common, card: { flowMode: 'DEFAULT', useInternationalCardOnly: true } };
  // 휴대폰 결제 and 상품권 (https://docs.tosspayments.com/sdk/v2/js#paymentrequestpayment: method MOBILE_PHONE,
  // CULTURE_GIFT_CERTIFICATE, BOOK_GIFT_CERTIFICATE, GAME_GIFT_CERTIFICATE): the window takes the phone or the
  // certificate; confirmed on /toss/success like a card. The seller's Toss contract must include the method.
  const windowMethod = ONE_TIME_WINDOW_METHODS[attempt.method as keyof typeof ONE_TIME_WINDOW_METHODS];
  if (windowMethod) return { method: windowMethod, ...common };
  return {
    method: 'CARD',
    amount: { currency: 'KRW', value: amount },
    orderId: ctx.session.pending_order_id,
    orderName: ctx.product.name.slice(0, 100),
    successUrl: `${base}/success`,
    failUrl: `${base}/fail`,
    customerEmail: attempt.buyerEmail,
    customerName: attempt.buyerName,
    customerMobilePhone: attempt.buyerPhone,
    // The 할부 chosen on our page is fixed in Toss's window (cardInstallmentPlan: 0 = 일시불, 2–12; 50,000원 or more).
    card:
      attempt.method === 'card'
        ? { flowMode: 'DEFAULT', ...(attempt.installmentMonths ? { cardInstallmentPlan: attempt.installmentMonths } : amount >= 50_000 ? { cardInstallmentPlan: 0 } : {}) }
        : { flowMode: 'DIRECT', easyPay: EASY_PAY[attempt.method as keyof typeof EASY_PAY] },
  };
}

/**
 * What every page that opens one of Toss's windows shares (the one-off payment window, the card registration for
 * 자동결제 at checkout and in the portal): the SDK script, the call made as Toss's docs prescribe —
 * `TossPayments(clientKey).payment({ customerKey }).requestPayment(...)` or `.requestBillingAuth(...)` — opened at once
 * and again from a button, and the card that explains it. `customerKey: null` is Toss's ANONYMOUS (one-off payments).
 */
export interface TossWindow {
  call: 'requestPayment' | 'requestBillingAuth';
  clientKey: string;
  customerKey: string | null;
  request: Record<string, unknown>;
  nonce: string;
  title: string;
  heading: string;
  /** Markup when it holds a name marked `translate="no"`. */
  text: string | SafeHtml;
  button: string;
  /** Shown when the window could not be opened / the SDK could not be loaded. */
  openFailed: string;
  loadFailed: string;
  /** Page content above the card (an order summary) and links under the button. */
  before?: SafeHtml;
  links: SafeHtml;
  /** The seller's business details footer (src/pages/footer.ts). */
  footer?: SafeHtml;
  /** The page's language (Korean when absent). */
  lang?: Lang;
}

/**
 * Toss documents no language option for its payment or card registration window (SDK v2 `requestPayment` /
 * `requestBillingAuth`, https://docs.tosspayments.com/sdk/v2/js; nor the core API, version 2022-11-16): the one English
 * window is the overseas-card window (`card.useInternationalCardOnly`, the `foreign_card` method above). So the page
 * around the window carries the language: the store header with the switch, our own words, and, on an English page,
 * our own message instead of an SDK error's (Korean) text.
 */
export function tossWindowPage(w: TossWindow): string {
  const config = { clientKey: w.clientKey, customerKey: w.customerKey, request: w.request, openFailed: w.openFailed, loadFailed: w.loadFailed, gatewayWords: (w.lang ?? 'ko') === 'ko' };
  // LANG_CSS: the language switch in the store header the caller puts in `before`.
  const head = html`${LANG_CSS}<script src="${TOSS_SDK_URL}" nonce="${w.nonce}"></script>`;
  // `w.call` is one of two method names (a closed union), written literally so the page reads as Toss's docs do.
  const call = raw(w.call);
  const script = html`<script nonce="${w.nonce}">
(function () {
  var cfg = ${scriptJson(config)};
  var err = document.getElementById('toss-error');
  function open() {
    err.textContent = '';
    try {
      var payment = TossPayments(cfg.clientKey).payment({ customerKey: cfg.customerKey === null ? TossPayments.ANONYMOUS : cfg.customerKey });
      payment.${call}(cfg.request).catch(function (e) { err.textContent = (cfg.gatewayWords && e && e.message) || cfg.openFailed; });
    } catch (e) {
      err.textContent = cfg.loadFailed;
    }
  }
  document.getElementById('toss-open').addEventListener('click', open);
  open();
})();
</script>`;
  return layout(
    { title: w.title, lang: w.lang, head, footer: w.footer },
    html`${w.before ?? ''}
<section class="card center">
  <h1>${w.heading}</h1>
  <p class="muted">${w.text}</p>
  <noscript><div class="banner error">${payCopy(w.lang).toss.noscript}</div></noscript>
  <p class="err" id="toss-error" role="alert"></p>
  <button class="pay" id="toss-open" type="button">${w.button}</button>
  ${w.links}
</section>
${script}`,
  );
}

/**
 * Live mode: after the form is checked on the server, this page opens Toss's payment window. Toss then sends the
 * buyer to /toss/success (confirmed on our server after the amount check) or /toss/fail.
 */
export function tossLaunchPage(ctx: PageContext, price: PriceLine, attempt: CheckoutAttempt, clientKey: string, baseUrl: string, nonce: string, presentment: Presentment | null = null): string {
  const c = payCopy(ctx.lang);
  return tossWindowPage({
    call: 'requestPayment',
    clientKey,
    customerKey: null,
    request: tossPaymentRequest(ctx, attempt, price.amount, baseUrl, presentment),
    nonce,
    title: c.title(ctx.product.name),
    heading: c.toss.heading,
    text: c.toss.text,
    button: c.toss.button,
    openFailed: c.toss.openFailed,
    loadFailed: c.toss.loadFailed,
    // The store's header with the language switch (back to the form in the other language; same order id).
    before: html`${header(ctx)}${summary(ctx, price)}`,
    links: html`<a class="cancel" href="/pay/${encodeURIComponent(ctx.session.id)}">${c.toss.edit}</a>
  ${cancelLink(ctx.session, c)}`,
    footer: footerOf(ctx),
    lang: c.lang,
  });
}
