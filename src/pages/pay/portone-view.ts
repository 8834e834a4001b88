import type { PaymentMethod } from '../../payments/method';
import { html, scriptJson, type SafeHtml } from '../html';
import { layout } from '../layout';
import type { Lang } from '../lang';
import { payCopy } from './copy';
import { LANG_CSS } from './views';

/**
 * The payment page of a store on PortOne (issue 42): after our form is checked on the server, this page opens the
 * PG's window through PortOne's browser SDK, as PortOne's checkout guide prescribes
 * (https://developers.portone.io/opi/ko/integration/start/v2/checkout): `PortOne.requestPayment({ storeId, channelKey,
 * paymentId, orderName, totalAmount, currency, payMethod, redirectUrl })`. Our order id is the `paymentId` ("같은
 * paymentId에 대해 … 최종적으로 결제에 성공하는 것은 단 한 번만 가능합니다"), so opening the window again (the button,
 * a reload) can never pay twice. Whatever the window answers, the page only hands the paymentId to our return URL:
 * the server reads the payment back from PortOne and compares amount and currency before the order is paid.
 * On mobile the PG's window leaves the page and PortOne redirects to `redirectUrl?paymentId=…[&code=…]` itself.
 */
export const PORTONE_SDK_URL = 'https://cdn.portone.io/v2/browser-sdk.js';

/**
 * The window's language (`locale` of requestPayment and requestIssueBillingKey; @portone/browser-sdk
 * dist/v2/entity/Locale.d.ts: KO_KR, EN_US, … "KG이니시스, 스마트로, KSNET, 웰컴페이먼츠 (PC), 한국결제네트웍스, 엑심베이에서
 * 설정 가능"): the page's language, which PGs without an English window ignore.
 */
export const WINDOW_LOCALE = { ko: 'KO_KR', en: 'EN_US' } as const;

/**
 * PortOne's `payMethod` and method options for each of our methods (browser SDK v2 requestPayment; easy pays opened
 * directly by `easyPay.easyPayProvider`, whose values are KAKAOPAY / NAVERPAY / TOSSPAY in @portone/browser-sdk 0.1,
 * dist/v2/entity/EasyPayProvider.d.ts).
 */
function methodOptions(method: PaymentMethod, installmentMonths: number | null, validHours: number): Record<string, unknown> {
  switch (method) {
    case 'kakao_pay':
      return { payMethod: 'EASY_PAY', easyPay: { easyPayProvider: 'KAKAOPAY' } };
    case 'naver_pay':
      return { payMethod: 'EASY_PAY', easyPay: { easyPayProvider: 'NAVERPAY' } };
    case 'toss':
      return { payMethod: 'EASY_PAY', easyPay: { easyPayProvider: 'TOSSPAY' } };
    case 'transfer':
      return { payMethod: 'TRANSFER' };
    case 'virtual_account':
      return { payMethod: 'VIRTUAL_ACCOUNT', virtualAccount: { accountExpiry: { validHours } } };
    default:
      // The 할부 chosen on our page is fixed in the window (card.installment.monthOption.fixedMonth).
      return { payMethod: 'CARD', ...(installmentMonths ? { card: { installment: { monthOption: { fixedMonth: installmentMonths } } } } : {}) };
  }
}

export interface PortOnePaymentInput {
  storeId: string;
  /** The channel key the seller saved for this method (their PG contract for it). */
  channelKey: string;
  /** Our order id: PortOne's paymentId. */
  orderId: string;
  orderName: string;
  amount: number;
  method: PaymentMethod;
  installmentMonths: number | null;
  buyer: { name: string; email: string; phone: string | null };
  /** Where the buyer lands after the window: our server confirms there by reading the payment back. */
  returnUrl: string;
  virtualAccountValidHours: number;
}

/** The argument of `PortOne.requestPayment(...)`. */
export function portonePaymentRequest(i: PortOnePaymentInput): Record<string, unknown> {
  return {
    storeId: i.storeId,
    channelKey: i.channelKey,
    paymentId: i.orderId,
    orderName: i.orderName.slice(0, 100),
    totalAmount: i.amount,
    currency: 'CURRENCY_KRW',
    ...methodOptions(i.method, i.installmentMonths, i.virtualAccountValidHours),
    customer: { fullName: i.buyer.name, email: i.buyer.email, ...(i.buyer.phone ? { phoneNumber: i.buyer.phone } : {}) },
    redirectUrl: i.returnUrl,
  };
}

export interface PortOneLaunchPage {
  payment: PortOnePaymentInput;
  nonce: string;
  /** The page's language (src/pages/lang.ts: the buyer's switch, Accept-Language, or the session's fixed locale). */
  lang: Lang;
  title: string;
  /** The order summary above the card, and links under the button (edit the form, cancel). */
  before?: SafeHtml;
  links: SafeHtml;
  footer?: SafeHtml;
  /** PortOne's CDN script in production; tests serve a stand-in. */
  sdkUrl?: string;
}

export function portoneLaunchPage(p: PortOneLaunchPage): string {
  const c = payCopy(p.lang).portone;
  // PortOne's messages (a closed window, a refusal) are Korean: an English page says its own words instead.
  const config = { request: { ...portonePaymentRequest(p.payment), locale: WINDOW_LOCALE[p.lang] }, returnUrl: p.payment.returnUrl, openFailed: c.openFailed, loadFailed: c.loadFailed, notDone: c.notDone, gatewayWords: p.lang === 'ko' };
  // LANG_CSS: the language switch in the store header the caller puts in `before`.
  const head = html`${LANG_CSS}<script src="${p.sdkUrl ?? PORTONE_SDK_URL}" nonce="${p.nonce}"></script>`;
  const script = html`<script nonce="${p.nonce}">
(function () {
  var cfg = ${scriptJson(config)};
  var err = document.getElementById('portone-error');
  var button = document.getElementById('portone-open');
  function done(r) {
    // The window's answer is only a hint: the server reads the payment back before the order is paid.
    if (!r) return;
    if (r.code !== undefined && r.code !== null) { err.textContent = (cfg.gatewayWords && r.message) || cfg.notDone; button.disabled = false; return; }
    var sep = cfg.returnUrl.indexOf('?') < 0 ? '?' : '&';
    location.href = cfg.returnUrl + sep + 'paymentId=' + encodeURIComponent(r.paymentId || cfg.request.paymentId);
  }
  function open() {
    err.textContent = '';
    if (typeof PortOne === 'undefined') { err.textContent = cfg.loadFailed; return; }
    button.disabled = true;
    try {
      PortOne.requestPayment(cfg.request).then(done, function (e) { err.textContent = (cfg.gatewayWords && e && e.message) || cfg.openFailed; button.disabled = false; });
    } catch (e) {
      err.textContent = cfg.openFailed;
      button.disabled = false;
    }
  }
  button.addEventListener('click', open);
  open();
})();
</script>`;
  return layout(
    { title: p.title, lang: p.lang, head, footer: p.footer },
    html`${p.before ?? ''}
<section class="card center">
  <h1>${c.heading}</h1>
  <p class="muted">${c.text}</p>
  <noscript><div class="banner error">${c.noscript}</div></noscript>
  <p class="err" id="portone-error" role="alert"></p>
  <button class="pay" id="portone-open" type="button">${c.button}</button>
  ${p.links}
</section>
${script}`,
  );
}
