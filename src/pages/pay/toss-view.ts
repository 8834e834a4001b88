import type { CheckoutAttempt } from '../../checkout/tables';
import { html, raw, scriptJson, type SafeHtml } from '../html';
import { layout } from '../layout';
import { cancelLink, footerOf, summary, type PageContext, type PriceLine } from './views';
import { payCopy } from './copy';
import type { Lang } from '../lang';

/** How long a virtual account waits for the deposit (Toss: validHours, at most 720; the order expires after). */
export const VIRTUAL_ACCOUNT_VALID_HOURS = 72;

export const TOSS_SDK_URL = 'https://js.tosspayments.com/v2/standard';

// Toss's direct wallet codes for `card.easyPay` (flowMode DIRECT opens that wallet without the card-company list).
const EASY_PAY = { kakao_pay: 'KAKAOPAY', naver_pay: 'NAVERPAY', toss: 'TOSSPAY' } as const;

/** The arguments of `payment.requestPayment(...)` in Toss Payments' JavaScript SDK v2 (standard payment window). */
export function tossPaymentRequest(ctx: PageContext, attempt: CheckoutAttempt, amount: number, baseUrl: string) {
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
  // 현금영수증 (`transfer.cashReceipt` / `virtualAccount.cashReceipt` { type: 소득공제 | 지출증빙 | 미발행 }): the buyer's
  // choice on our page; Toss issues it with the payment (a 가상계좌's at the deposit) and reports Payment.cashReceipt.
  const cashReceipt = { type: attempt.cashReceipt?.type ?? '미발행' };
  if (attempt.method === 'transfer') return { method: 'TRANSFER', ...common, transfer: { cashReceipt, useEscrow: false } };
  // 가상계좌 (method VIRTUAL_ACCOUNT): Toss issues an account; the order waits for the deposit (DEPOSIT_CALLBACK).
  if (attempt.method === 'virtual_account') return { method: 'VIRTUAL_ACCOUNT', ...common, virtualAccount: { cashReceipt, useEscrow: false, validHours: VIRTUAL_ACCOUNT_VALID_HOURS } };
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
        : { flowMode: 'DIRECT', easyPay: EASY_PAY[attempt.method] },
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
  text: string;
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

export function tossWindowPage(w: TossWindow): string {
  const config = { clientKey: w.clientKey, customerKey: w.customerKey, request: w.request, openFailed: w.openFailed, loadFailed: w.loadFailed };
  const head = html`<script src="${TOSS_SDK_URL}" nonce="${w.nonce}"></script>`;
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
      payment.${call}(cfg.request).catch(function (e) { err.textContent = (e && e.message) || cfg.openFailed; });
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
export function tossLaunchPage(ctx: PageContext, price: PriceLine, attempt: CheckoutAttempt, clientKey: string, baseUrl: string, nonce: string): string {
  const c = payCopy(ctx.lang);
  return tossWindowPage({
    call: 'requestPayment',
    clientKey,
    customerKey: null,
    request: tossPaymentRequest(ctx, attempt, price.amount, baseUrl),
    nonce,
    title: c.title(ctx.product.name),
    heading: c.toss.heading,
    text: c.toss.text,
    button: c.toss.button,
    openFailed: c.toss.openFailed,
    loadFailed: c.toss.loadFailed,
    before: summary(ctx, price),
    links: html`<a class="cancel" href="/pay/${encodeURIComponent(ctx.session.id)}">${c.toss.edit}</a>
  ${cancelLink(ctx.session, c)}`,
    footer: footerOf(ctx),
    lang: c.lang,
  });
}
