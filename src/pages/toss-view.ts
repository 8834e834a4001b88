import type { CheckoutAttempt } from '../checkout/tables';
import { html, scriptJson } from './html';
import { layout } from './layout';
import { cancelLink, footerOf, summary, type PageContext, type PriceLine } from './views';

export const TOSS_SDK_URL = 'https://js.tosspayments.com/v2/standard';

// Toss's direct wallet codes for `card.easyPay` (flowMode DIRECT opens that wallet without the card-company list).
const EASY_PAY = { kakao_pay: 'KAKAOPAY', naver_pay: 'NAVERPAY', toss: 'TOSSPAY' } as const;

/** The arguments of `payment.requestPayment(...)` in Toss Payments' JavaScript SDK v2 (standard payment window). */
export function tossPaymentRequest(ctx: PageContext, attempt: CheckoutAttempt, amount: number, baseUrl: string) {
  const base = `${baseUrl}/pay/${encodeURIComponent(ctx.session.id)}/toss`;
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
 * Live mode: after the form is checked on the server, this page loads Toss's SDK and opens its payment window as
 * Toss's docs prescribe (TossPayments(clientKey).payment({ customerKey: ANONYMOUS }).requestPayment(...)). Toss then
 * sends the buyer to /toss/success (confirmed on our server after the amount check) or /toss/fail.
 */
export function tossLaunchPage(ctx: PageContext, price: PriceLine, attempt: CheckoutAttempt, clientKey: string, baseUrl: string, nonce: string): string {
  const config = { clientKey, request: tossPaymentRequest(ctx, attempt, price.amount, baseUrl) };
  const head = html`<script src="${TOSS_SDK_URL}" nonce="${nonce}"></script>`;
  const script = html`<script nonce="${nonce}">
(function () {
  var cfg = ${scriptJson(config)};
  var err = document.getElementById('toss-error');
  function open() {
    err.textContent = '';
    try {
      var payment = TossPayments(cfg.clientKey).payment({ customerKey: TossPayments.ANONYMOUS });
      payment.requestPayment(cfg.request).catch(function (e) { err.textContent = (e && e.message) || '결제창을 열지 못했습니다.'; });
    } catch (e) {
      err.textContent = '결제창을 불러오지 못했습니다. 잠시 후 다시 시도해 주세요.';
    }
  }
  document.getElementById('toss-open').addEventListener('click', open);
  open();
})();
</script>`;
  return layout(
    { title: `${ctx.product.name} 결제`, head, footer: footerOf(ctx) },
    html`${summary(ctx, price)}
<section class="card center">
  <h1>결제창을 여는 중입니다</h1>
  <p class="muted">토스페이먼츠 결제창에서 결제를 마쳐 주세요.</p>
  <noscript><div class="banner error">결제창을 열려면 브라우저의 자바스크립트를 켜 주세요.</div></noscript>
  <p class="err" id="toss-error" role="alert"></p>
  <button class="pay" id="toss-open" type="button">결제창 열기</button>
  <a class="cancel" href="/pay/${encodeURIComponent(ctx.session.id)}">결제 정보 수정하기</a>
  ${cancelLink(ctx.session)}
</section>
${script}`,
  );
}
