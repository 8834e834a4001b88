import { html, scriptJson, type SafeHtml } from '../html';
import { layout } from '../layout';
import type { Lang } from '../lang';
import { payCopy } from './copy';
import { PORTONE_SDK_URL, WINDOW_LOCALE } from './portone-view';
import { LANG_CSS } from './views';

/**
 * A subscription or a free trial on a store on PortOne (issue 42): the buyer registers the card for 자동결제 in the
 * PG's window through PortOne's browser SDK, as PortOne's billing guide prescribes
 * (https://developers.portone.io/opi/ko/integration/start/v2/billing/issue): `PortOne.requestIssueBillingKey({ storeId,
 * channelKey, billingKeyMethod: 'CARD', issueId, issueName, customer, redirectUrl })` (IssueBillingKeyRequestBase in
 * PortOne's browser-sdk.yml). The window answers `{ billingKey }` or `{ code, message }` (IssueBillingKeyResponse); on
 * mobile PortOne redirects to `redirectUrl` with the same as query parameters. The page only hands the billing key to
 * our return URL: the server reads it back (GET /billing-keys/{billingKey}: ISSUED, this store, this customer) before
 * it charges the first payment to it, for the session's own amount.
 */
export interface PortOneBillingInput {
  storeId: string;
  /** The seller's card channel (their PG contract for cards, which must allow 정기결제). */
  channelKey: string;
  /** Our order id of this attempt: PortOne's issueId here, and the paymentId of the first charge (none for a card change). */
  orderId: string | null;
  issueName: string;
  /** The subscription's id: PortOne's customer.customerId, which the billing key must carry when it is read back. */
  customerId: string;
  buyer: { name: string; email: string; phone: string | null };
  returnUrl: string;
}

/** The argument of `PortOne.requestIssueBillingKey(...)`. */
export function portoneBillingRequest(i: PortOneBillingInput): Record<string, unknown> {
  return {
    storeId: i.storeId,
    channelKey: i.channelKey,
    billingKeyMethod: 'CARD',
    ...(i.orderId ? { issueId: i.orderId } : {}),
    issueName: i.issueName.slice(0, 100),
    customer: { customerId: i.customerId, fullName: i.buyer.name, email: i.buyer.email, ...(i.buyer.phone ? { phoneNumber: i.buyer.phone } : {}) },
    redirectUrl: i.returnUrl,
  };
}

export interface PortOneBillingLaunchPage {
  billing: PortOneBillingInput;
  nonce: string;
  lang: Lang;
  title: string;
  /** A free trial's length: nothing is charged now. */
  trialDays: number | null;
  /** The portal's card change words its page itself (heading, text, button, errors); absent: the pay page's. */
  words?: { heading: string; text: SafeHtml | string; button: string; openFailed: string; loadFailed: string };
  before?: SafeHtml;
  links: SafeHtml;
  footer?: SafeHtml;
  /** PortOne's CDN script in production; tests serve a stand-in. */
  sdkUrl?: string;
}

export function portoneBillingLaunchPage(p: PortOneBillingLaunchPage): string {
  const c = payCopy(p.lang).portoneBilling;
  const w = p.words ?? { heading: c.heading, text: p.trialDays ? c.trial(p.trialDays) : c.text, button: c.button, openFailed: c.openFailed, loadFailed: c.loadFailed };
  // PortOne's messages (a closed window, a refusal) are Korean: an English page says its own words instead.
  const config = { request: { ...portoneBillingRequest(p.billing), locale: WINDOW_LOCALE[p.lang] }, returnUrl: p.billing.returnUrl, openFailed: w.openFailed, loadFailed: w.loadFailed, notDone: c.notDone, gatewayWords: p.lang === 'ko' };
  const head = html`${LANG_CSS}<script src="${p.sdkUrl ?? PORTONE_SDK_URL}" nonce="${p.nonce}"></script>`;
  const script = html`<script nonce="${p.nonce}">
(function () {
  var cfg = ${scriptJson(config)};
  var err = document.getElementById('portone-error');
  var button = document.getElementById('portone-open');
  function done(r) {
    // Only a hint: the server reads the billing key back from PortOne before anything is charged.
    if (!r) return;
    if (r.code !== undefined && r.code !== null) { err.textContent = (cfg.gatewayWords && r.message) || cfg.notDone; button.disabled = false; return; }
    var sep = cfg.returnUrl.indexOf('?') < 0 ? '?' : '&';
    location.href = cfg.returnUrl + sep + 'billingKey=' + encodeURIComponent(r.billingKey || '');
  }
  function open() {
    err.textContent = '';
    if (typeof PortOne === 'undefined') { err.textContent = cfg.loadFailed; return; }
    button.disabled = true;
    try {
      PortOne.requestIssueBillingKey(cfg.request).then(done, function (e) { err.textContent = (cfg.gatewayWords && e && e.message) || cfg.openFailed; button.disabled = false; });
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
  <h1>${w.heading}</h1>
  <p class="muted">${w.text}</p>
  <noscript><div class="banner error">${c.noscript}</div></noscript>
  <p class="err" id="portone-error" role="alert"></p>
  <button class="pay" id="portone-open" type="button">${w.button}</button>
  ${p.links}
</section>
${script}`,
  );
}
