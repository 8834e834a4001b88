import type { CheckoutAttempt } from '../checkout/tables';
import { html, scriptJson } from './html';
import { layout } from './layout';
import { TOSS_SDK_URL } from './toss-view';
import { cancelLink, footerOf, summary, type PageContext, type PriceLine } from './views';

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
  const config = { clientKey, customerKey, request: tossBillingAuthRequest(ctx, attempt, baseUrl) };
  const head = html`<script src="${TOSS_SDK_URL}" nonce="${nonce}"></script>`;
  const script = html`<script nonce="${nonce}">
(function () {
  var cfg = ${scriptJson(config)};
  var err = document.getElementById('toss-error');
  function open() {
    err.textContent = '';
    try {
      var payment = TossPayments(cfg.clientKey).payment({ customerKey: cfg.customerKey });
      payment.requestBillingAuth(cfg.request).catch(function (e) { err.textContent = (e && e.message) || '카드 등록 창을 열지 못했습니다.'; });
    } catch (e) {
      err.textContent = '카드 등록 창을 불러오지 못했습니다. 잠시 후 다시 시도해 주세요.';
    }
  }
  document.getElementById('toss-open').addEventListener('click', open);
  open();
})();
</script>`;
  return layout(
    { title: `${ctx.product.name} 정기결제`, head, footer: footerOf(ctx) },
    html`${summary(ctx, price)}
<section class="card center">
  <h1>결제 카드를 등록해 주세요</h1>
  <p class="muted">정기결제에 사용할 카드를 토스페이먼츠 창에서 등록하면 첫 결제 금액이 바로 결제되고, 이후 결제일마다 같은 카드로 자동 결제됩니다.</p>
  <noscript><div class="banner error">카드 등록 창을 열려면 브라우저의 자바스크립트를 켜 주세요.</div></noscript>
  <p class="err" id="toss-error" role="alert"></p>
  <button class="pay" id="toss-open" type="button">카드 등록 창 열기</button>
  <a class="cancel" href="/pay/${encodeURIComponent(ctx.session.id)}">결제 정보 수정하기</a>
  ${cancelLink(ctx.session)}
</section>
${script}`,
  );
}
