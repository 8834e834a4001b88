import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, formPost, owner, payPath, submitPayForm } from '../checkout/factory';
import { untranslated } from '../helpers/hangul';
import { chooseLang, fromAcceptLanguage, switchHref } from '../../src/pages/lang';
import { buyerPagePath } from '../../src/buyers/model';
import { refundTerms, refundTermsEn } from '../../src/pages/terms';
import { subscribe } from '../subscriptions/factory';
import { portalCardLaunchPage } from '../../src/pages/pay/toss-billing-view';
import { portoneBillingLaunchPage } from '../../src/pages/pay/portone-billing-view';
import { portalCopy } from '../../src/pages/portal/copy';
import { payCopy } from '../../src/pages/pay/copy';
import { html } from '../../src/pages/html';
import { updateModeSettings } from '../../src/stores/service';
import { startFakePortOne } from '../payments/fake-portone';
import { startFakeToss } from '../payments/fake-toss';

/**
 * Buyers abroad (issue 41): every buyer page a payment goes through reads in English when the buyer chooses it (the
 * switch, then a cookie), when the browser prefers English, or when the seller fixed `locale: 'en'` on the session; and
 * the English page has no untranslated Korean except what is marked: legal statements kept in Korean (`lang="ko"`, each
 * with its English beside it) and the store's, seller's and product's own names (`translate="no"`).
 */

let t: TestApp;
let s: TestStore;
let product: { id: string; name: string };
const EN = { 'accept-language': 'en-US,en;q=0.9,ko;q=0.3' };
const OWN = ['테스트 상점', '전자책', '멤버십', '베이직', '프로', '김구매'];

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  product = await createProduct(t, s, { price: 60_000 });
});
after(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ url, headers });
const isEnglish = (page: string) => /<html lang="en">/.test(page);
function assertAllEnglish(page: string, what: string) {
  assert.ok(isEnglish(page), `${what}: <html lang="en">`);
  assert.deepEqual(untranslated(page, OWN), [], `${what}: Korean left untranslated`);
}

test('the language is chosen one way: ?lang, then the seller\'s fixed locale, then the cookie, then Accept-Language (en over ko), else Korean', () => {
  assert.equal(fromAcceptLanguage('en-US,en;q=0.9,ko;q=0.8'), 'en');
  assert.equal(fromAcceptLanguage('ko-KR,ko;q=0.9,en-US;q=0.8'), 'ko');
  assert.equal(fromAcceptLanguage('ko;q=0.5, en;q=0.7'), 'en', 'q-values, not order');
  assert.equal(fromAcceptLanguage('fr-FR,de'), null, 'neither: the default applies');
  assert.equal(fromAcceptLanguage(undefined), null);
  const req = (query: Record<string, string>, headers: Record<string, string>) => ({ query, headers });
  assert.equal(chooseLang(req({}, {})).lang, 'ko');
  assert.equal(chooseLang(req({}, { 'accept-language': 'en' })).lang, 'en');
  assert.equal(chooseLang(req({}, { 'accept-language': 'en', cookie: 'a=1; lang=ko' })).lang, 'ko', 'the cookie the switch set beats the browser');
  assert.equal(chooseLang(req({}, { 'accept-language': 'en', cookie: 'lang=en' }), 'ko').lang, 'ko', 'the seller fixed Korean');
  const clicked = chooseLang(req({ lang: 'en' }, { cookie: 'lang=ko' }), 'ko');
  assert.equal(clicked.lang, 'en', 'the switch wins: a buyer is never locked into a language they cannot read');
  assert.match(clicked.setCookie ?? '', /^lang=en; Path=\/; Max-Age=\d+; SameSite=Lax$/);
  assert.equal(switchHref('/pay/cs_1?checking=1&lang=en', 'ko'), '/pay/cs_1?checking=1&lang=ko', 'the rest of the address kept');
});

test('the payment page: Korean by default, English for an English browser with a switch back; the switch sets a cookie that later pages follow', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const ko = (await get(payPath(session))).body;
  assert.match(ko, /<html lang="ko">/);
  assert.match(ko, /id="lang-switch" href="[^"]*lang=en" hreflang="en" lang="en">English</);

  const en = (await get(payPath(session), EN)).body;
  assertAllEnglish(en, 'payment page');
  assert.match(en, />Checkout</);
  assert.match(en, /Pay ₩60,000 by card/);
  assert.match(en, /id="lang-switch" href="[^"]*lang=ko" hreflang="ko" lang="ko">한국어</);
  // The 청약철회 statements stay in Korean beside their English, and the agreements' Korean text is kept.
  assert.match(en, /Within 7 days of payment you can withdraw[^<]*<br><span lang="ko" class="hint">결제일로부터 7일 이내에는 청약철회/);
  assert.match(en, /<div lang="ko"><p>결제는 전자금융거래법에 따라/);

  const clicked = await get(`${payPath(session)}?lang=en`, { 'accept-language': 'ko' });
  assert.ok(isEnglish(clicked.body));
  assert.match(String(clicked.headers['set-cookie']), /^lang=en;/);
  const later = await get(payPath(session), { 'accept-language': 'ko', cookie: 'lang=en' });
  assert.ok(isEnglish(later.body), 'the cookie beats the browser');
});

test('a seller-fixed locale decides over the browser; the switch still works; without one the language the buyer pays in becomes the order\'s', async () => {
  const fixedKo = await createSession(t, s.key, { productId: product.id, locale: 'ko' });
  assert.match((await get(payPath(fixedKo), EN)).body, /<html lang="ko">/, 'the seller fixed Korean');
  assert.ok(isEnglish((await get(`${payPath(fixedKo)}?lang=en`)).body), 'the buyer\'s switch wins');
  const fixedEn = await createSession(t, s.key, { productId: product.id, locale: 'en' });
  assertAllEnglish((await get(payPath(fixedEn), { 'accept-language': 'ko-KR' })).body, 'session fixed to en');

  const open = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const paid = await submitPayForm(t, open, { cardNumber: '4242424242424242', lang: 'en' });
  assert.equal(paid.statusCode, 303, paid.body);
  const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
  const row = await t.db.selectFrom('orders').select('locale').where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(row.locale, 'en', 'the order (its receipt and mails) follows the page the buyer paid on');
  const koPaid = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok', locale: 'ko' });
  const r2 = await submitPayForm(t, koPaid, { cardNumber: '4242424242424242', lang: 'en' });
  const id2 = new URL(String(r2.headers.location)).searchParams.get('order_id')!;
  assert.equal((await t.db.selectFrom('orders').select('locale').where('id', '=', id2).executeTakeFirstOrThrow()).locale, 'ko', 'a seller-fixed locale stays');
});

test('every view of the payment page reads in English: field errors, the paid page with its receipt, the approval and 가상계좌 pages, a subscription\'s recurring terms, not found', async () => {
  const session = await createSession(t, s.key, { productId: product.id });
  const errors = await formPost(t, payPath(session), { action: 'pay', lang: 'en', buyerName: '', buyerEmail: 'x', buyerPhone: '12', method: '', installment: '5' });
  assert.equal(errors.statusCode, 422);
  assertAllEnglish(errors.body, 'form with errors');
  assert.match(errors.body, /Please enter your name\./);
  assert.match(errors.body, /Please agree to all the required agreements to pay\./);

  const paid = await submitPayForm(t, session, { cardNumber: '4242424242424242', lang: 'en' });
  assert.equal(paid.statusCode, 200, paid.body);
  assertAllEnglish(paid.body, 'paid page');
  assert.match(paid.body, /Payment complete/);
  assert.match(paid.body, /\?t=[^"]*&amp;lang=en"|\?t=[^"]*&lang=en"/, 'the receipt link keeps the language');
  assertAllEnglish((await get(payPath(session), EN)).body, 'already paid');

  const wallet = await createSession(t, s.key, { productId: product.id });
  const toApprove = await submitPayForm(t, wallet, { method: 'kakao_pay', lang: 'en' });
  assert.equal(toApprove.statusCode, 303);
  assertAllEnglish((await get(`${payPath(wallet)}/approve`, EN)).body, 'approval page');

  const va = await createSession(t, s.key, { productId: product.id });
  await submitPayForm(t, va, { method: 'virtual_account', lang: 'en' });
  const issued = await formPost(t, `${payPath(va)}/approve`, { decision: 'approve', lang: 'en' });
  assert.equal(issued.statusCode, 200, issued.body);
  assertAllEnglish(issued.body, '가상계좌 issued page');
  assert.match(issued.body, /A virtual account has been issued/);
  assert.match(issued.body, /\(Korea time\)/);

  const sub = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
  const subSession = await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly' });
  const subPage = (await get(payPath(subSession), EN)).body;
  assertAllEnglish(subPage, 'subscription page');
  assert.match(subPage, /Recurring payment after the free trial/);
  assert.match(subPage, /id="recurring-trial-end">[A-Z][a-z]{2} \d{1,2}, \d{4}</, 'dates in English');
  assert.doesNotMatch(subPage, /undefined|NaN/);
  assert.match(subPage, /<span lang="ko">무료 체험 기간에는 결제되지 않으며/, 'the consent sentence kept as agreed, in Korean');

  const missing = await get('/pay/cs_00000000000000000000000000', EN);
  assert.equal(missing.statusCode, 404);
  assertAllEnglish(missing.body, 'not found');
});

test('the receipt and the buyer sign-in page in English have no untranslated Korean', async () => {
  const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
  const paid = await submitPayForm(t, session, { cardNumber: '4242424242424242', lang: 'en' });
  const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
  const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
  const u = new URL(order.receiptUrl);
  assertAllEnglish((await get(`${u.pathname}${u.search}&lang=en`)).body, 'receipt');
  assertAllEnglish((await get(`${buyerPagePath(s.storeId, 'test')}?lang=en`)).body, 'buyer sign-in');
});

test('the portal in English: the subscription card, the ways to cancel, plan and card forms, its payments; Korean only where marked', async () => {
  const sub = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }, { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 }] });
  const { subscriptionId } = await subscribe(t, s, { productId: sub.id });
  const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId, returnUrl: 'https://example.com/account' } });
  assert.equal(created.statusCode, 200, created.body);
  const path = new URL(created.json().url).pathname;
  const ko = (await get(path)).body;
  assert.match(ko, /<html lang="ko">/);
  assert.match(ko, />구독 관리</);
  const en = (await get(path, EN)).body;
  assertAllEnglish(en, 'portal');
  assert.match(en, />Manage subscription</);
  assert.match(en, />Cancel now with a refund</);
  assert.match(en, /<p class="muted" lang="ko">[^<]*자동 결제/, 'the consent as agreed, kept in Korean beside its English');
  assert.match(en, /id="lang-switch" href="[^"]*lang=ko"/);
  const notice = (await get(`${path}?notice=${encodeURIComponent('결제 카드를 변경했습니다.')}`, EN)).body;
  assert.match(notice, /role="status">The card is changed\.</, 'an action\'s notice in English');
  const gone = await get('/portal/not-a-real-token', EN);
  assert.equal(gone.statusCode, 410);
  assertAllEnglish(gone.body, 'expired portal link');
});

test('the portal in English, also what it asks the buyer to agree to: a price increase, a seller\'s plan offer, a long trial\'s paid conversion; the cancel results, the card window and the 400 page', async () => {
  const PLANS = [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }, { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 }];
  const DAY = 86_400_000;
  const open = async (subscriptionId: string) => {
    const r = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
    assert.equal(r.statusCode, 200, r.body);
    const path = new URL(r.json().url).pathname;
    const page = (await get(path, EN)).body;
    return { path, page, csrf: /name="csrf" value="([A-Za-z0-9]+)"/.exec(page)![1] };
  };
  const form = (url: string, fields: Record<string, string>) =>
    t.app.inject({ method: 'POST', url, headers: { ...EN, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });

  // A scheduled price increase: the box asks for consent, in English, with both answers.
  const priced = await createSubscriptionProduct(t, s, { plans: PLANS });
  const a = await subscribe(t, s, { productId: priced.id });
  const scheduled = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${priced.id}/plans/basic/price-changes`, headers: owner(s), payload: { monthlyPrice: 12_900, effectiveAt: new Date(t.clock.now().getTime() + 30 * DAY).toISOString() } });
  assert.equal(scheduled.statusCode, 201, scheduled.body);
  const pa = await open(a.subscriptionId);
  assert.match(pa.page, /data-consent="required"/);
  assertAllEnglish(pa.page, 'portal with a price increase');
  assert.match(pa.page, /₩9,900\/month → ₩12,900\/month/);
  assert.match(pa.page, /data-action="accept-price">Agree to the new price \(₩12,900\/month\)</);
  assert.match(pa.page, /data-action="decline-price">Decline \(the subscription ends on [A-Z][a-z]+ \d{1,2}, \d{4}\)</);
  // Answering it: the notice (with its date) reads in English.
  const declined = await form(`${pa.path}/subscriptions/${a.subscriptionId}/price-changes/${scheduled.json().id}/decline`, { csrf: pa.csrf });
  assert.equal(declined.statusCode, 303, declined.body);
  const afterDecline = (await get(String(declined.headers.location), EN)).body;
  assertAllEnglish(afterDecline, 'portal after declining the new price');
  assert.match(afterDecline, /role="status">You declined the new price\. You keep the current price until [A-Z][a-z]+ \d{1,2}, \d{4};/);
  const accepted = await form(`${pa.path}/subscriptions/${a.subscriptionId}/price-changes/${scheduled.json().id}/accept`, { csrf: pa.csrf });
  assertAllEnglish((await get(String(accepted.headers.location), EN)).body, 'portal after accepting the new price');

  // A seller's upgrade waiting for the buyer's consent: the plan names stay the seller's own.
  const offered = await createSubscriptionProduct(t, s, { plans: PLANS });
  const b = await subscribe(t, s, { productId: offered.id });
  const change = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${b.subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'pro', interval: 'monthly' } });
  assert.equal(change.json().timing, 'awaiting_consent', change.body);
  const pb = await open(b.subscriptionId);
  assert.match(pb.page, /data-plan-offer="/);
  assertAllEnglish(pb.page, 'portal with a plan offer');
  assert.match(pb.page, /<span translate="no">베이직<\/span> ₩9,900\/month → <span translate="no">프로<\/span> ₩19,900\/month/);
  const agreed = await form(`${pb.path}/subscriptions/${b.subscriptionId}/plan-offers/${change.json().offer.id}/accept`, { csrf: pb.csrf });
  assert.equal(agreed.statusCode, 303, agreed.body);
  const afterOffer = (await get(String(agreed.headers.location), EN)).body;
  assertAllEnglish(afterOffer, 'portal after accepting the offer');

  // A 60-day trial 45 days in: the consent to its first charge, recorded in Korean, with its English beside it.
  const trial = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 60 }] });
  const c = await subscribe(t, s, { productId: trial.id });
  const pLater = await open(c.subscriptionId);
  assert.match(pLater.page, /data-trial-consent="later"/);
  assertAllEnglish(pLater.page, 'portal with a trial consent to come');
  assert.equal((await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${c.subscriptionId}/test-clock/advance`, headers: owner(s), payload: { days: 45 } })).statusCode, 200);
  const pc = await open(c.subscriptionId);
  assert.match(pc.page, /data-trial-consent="required"/);
  assertAllEnglish(pc.page, 'portal with a trial consent');
  assert.match(pc.page, /<p lang="ko">무료 체험이 끝나는 [^<]*유료 전환에 동의합니다[^<]*<\/p><p>The consent as recorded, in Korean above\. In English: I agree that from [A-Z][a-z]+ \d{1,2}, \d{4}, when the free trial ends, ₩9,900 is charged automatically/);
  const given = await form(`${pc.path}/subscriptions/${c.subscriptionId}/trial-consent`, { csrf: pc.csrf });
  assertAllEnglish((await get(String(given.headers.location), EN)).body, 'portal after the trial consent');

  // A plan change the buyer scheduled: its notice and the pending hint, the plan's name marked as the seller's own.
  const e = await subscribe(t, s, { productId: offered.id });
  const pe = await open(e.subscriptionId);
  const toYearly = await form(`${pe.path}/subscriptions/${e.subscriptionId}/plan`, { csrf: pe.csrf, plan: 'basic:yearly' });
  assert.equal(toYearly.statusCode, 303, toYearly.body);
  const pending = (await get(String(toYearly.headers.location), EN)).body;
  assertAllEnglish(pending, 'portal with a pending plan change');
  assert.match(pending, /Changes to <span translate="no">베이직<\/span> · Yearly \(₩99,000\) from [A-Z][a-z]+ \d{1,2}, \d{4}\./);

  // The pages after cancelling: at the period end, and now with a refund.
  const d = await subscribe(t, s, { productId: offered.id });
  const pd = await open(d.subscriptionId);
  const atEnd = await form(`${pd.path}/subscriptions/${d.subscriptionId}/cancel`, { csrf: pd.csrf, timing: 'period_end' });
  assert.equal(atEnd.statusCode, 200, atEnd.body);
  assertAllEnglish(atEnd.body, 'cancel scheduled page');
  assert.match(atEnd.body, /Your cancellation is scheduled/);
  const now = await form(`${pd.path}/subscriptions/${d.subscriptionId}/cancel`, { csrf: pd.csrf, timing: 'immediate' });
  assert.equal(now.statusCode, 200, now.body);
  assertAllEnglish(now.body, 'cancel-now page');
  assert.match(now.body, /Your subscription is canceled and ₩9,900 is refunded\./);

  // The card-change window's launch page, and the portal's 400 page.
  const launch = portalCardLaunchPage({ storeName: '테스트 상점', productName: '멤버십', clientKey: 'test_ck_x', customerKey: 'cus_x', buyerName: '김구매', buyerEmail: 'a@example.com', returnBase: 'https://example.com/portal/x/card/y', portalPath: '/portal/x', nonce: 'n', lang: 'en' });
  assertAllEnglish(launch, 'card-change launch page');
  assert.match(launch, /Register your new card/);
  const bad = await t.app.inject({ method: 'POST', url: `${pd.path}/subscriptions/${d.subscriptionId}/cancel`, headers: { ...EN, 'content-type': 'application/json' }, payload: '{not json' });
  assert.equal(bad.statusCode, 400, bad.body);
  assertAllEnglish(bad.body, 'portal 400 page');
});

test('a store on PortOne: the launch pages of its payment and card registration windows, the store without a channel and the return\'s refusals read in English; Korean stays the default', async () => {
  const fake = await startFakePortOne({ clock: t.clock });
  const apiBase = t.deps.config.portoneApiBaseUrl;
  try {
    (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
    const po = await createTestStore(t);
    await updateModeSettings(t.deps, po.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' } });
    const one = await createProduct(t, po, { price: 12_000 });
    const cfg = (page: string) => JSON.parse(/var cfg = (\{.*?\});\n/s.exec(page)![1]);

    // The one-off payment's launch page (PortOne.requestPayment), chosen by the form's language.
    const session = await createSession(t, po.key, { productId: one.id });
    const ko = await submitPayForm(t, session, { method: 'card' });
    assert.equal(ko.statusCode, 200, ko.body.slice(0, 300));
    assert.match(ko.body, /<html lang="ko">/);
    assert.match(ko.body, /<h1>결제창을 여는 중입니다<\/h1>/);
    assert.match(ko.body, /id="lang-switch" href="[^"]*lang=en"/, 'a visible switch');
    const en = await submitPayForm(t, session, { method: 'card', lang: 'en' });
    assert.equal(en.statusCode, 200, en.body.slice(0, 300));
    assertAllEnglish(en.body, 'PortOne payment launch page');
    assert.match(en.body, /<h1>Opening the payment window<\/h1>/);
    assert.match(en.body, /id="lang-switch" href="[^"]*lang=ko"/);
    assert.match(en.body, />Edit the payment details</);
    assert.equal(cfg(en.body).openFailed, 'The payment window could not be opened. Please try again.', 'what the script shows is English too');
    assert.equal(cfg(en.body).request.paymentId, cfg(ko.body).request.paymentId, 'the same payment whatever the language');
    assert.equal(cfg(en.body).request.locale, 'EN_US', "PortOne's window in English");
    assert.equal(cfg(ko.body).request.locale, 'KO_KR');

    // Its return: PortOne's refusal and a foreign paymentId, on the form in English.
    const back = `${payPath(session)}/portone/return`;
    const closed = await get(`${back}?paymentId=${encodeURIComponent(cfg(en.body).request.paymentId)}&code=FAILURE_TYPE_PG&message=${encodeURIComponent('사용자가 결제를 취소했습니다')}`, EN);
    assert.equal(closed.statusCode, 422);
    assertAllEnglish(closed.body, 'PortOne return: window closed');
    assert.match(closed.body, /The payment was not completed\. Please try again\./);
    const other = await get(`${back}?paymentId=ord_someone_else`, EN);
    assert.equal(other.statusCode, 422);
    assertAllEnglish(other.body, 'PortOne return: another payment');
    assert.match(other.body, /did not match the order/);

    // A method the seller has no channel for.
    const noChannel = await submitPayForm(t, await createSession(t, po.key, { productId: one.id }), { method: 'transfer', lang: 'en' });
    assert.equal(noChannel.statusCode, 503);
    assertAllEnglish(noChannel.body, 'PortOne store without a channel for the method');
    assert.match(noChannel.body, /has not connected this payment method yet/);

    // A subscription's card registration (PortOne.requestIssueBillingKey).
    const sub = await createSubscriptionProduct(t, po);
    const subSession = await createSession(t, po.key, { productId: sub.id, planId: 'basic', interval: 'monthly' });
    assert.match((await submitPayForm(t, subSession, { method: 'card' })).body, /<h1>결제 카드를 등록해 주세요<\/h1>/);
    const billing = await submitPayForm(t, subSession, { method: 'card', lang: 'en' });
    assert.equal(billing.statusCode, 200, billing.body.slice(0, 300));
    assert.equal(cfg(billing.body).request.locale, 'EN_US');
    const billingClosed = await get(`${payPath(subSession)}/portone/billing-return?code=FAILURE_TYPE_PG&message=${encodeURIComponent('사용자가 카드 등록을 취소했습니다')}`, EN);
    assert.equal(billingClosed.statusCode, 422);
    assertAllEnglish(billingClosed.body, 'PortOne billing return: window closed');
    assertAllEnglish(billing.body, 'PortOne card registration launch page');
    assert.match(billing.body, /<h1>Register your card<\/h1>/);
    assert.match(billing.body, /id="lang-switch" href="[^"]*lang=ko"/);

    // The portal's card change on PortOne (its words are the portal's).
    const k = portalCopy('en').cardLaunch;
    const portal = portoneBillingLaunchPage({
      billing: { storeId: fake.storeId, channelKey: 'channel-key-x', orderId: null, issueName: k.title, customerId: 'sub_x', buyer: { name: '김구매', email: 'a@example.com', phone: null }, returnUrl: 'https://example.com/portal/x/card/y/success' },
      nonce: 'n',
      lang: 'en',
      title: k.title,
      trialDays: null,
      words: { heading: k.heading, text: k.textAny(html`<span translate="no">멤버십</span>`), button: k.button, openFailed: k.openFailed, loadFailed: k.loadFailed },
      before: html`<div class="store"><span translate="no">테스트 상점</span></div>`,
      links: html`<a class="cancel" href="/portal/x">${portalCopy('en').toPortal}</a>`,
    });
    assertAllEnglish(portal, 'portal card change on PortOne');
  } finally {
    (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = apiBase;
    await fake.close();
  }
});

test('a store on Toss: the launch pages of its payment and card registration windows (checkout and portal) and its fail return read in English with the switch; Korean stays the default', async () => {
  // Only launch pages and the fail return: beyond the key check on saving the store's keys, nothing here reaches Toss.
  const fake = await startFakeToss({ kind: 'live' });
  const apiBase = t.deps.config.tossApiBaseUrl;
  try {
    (t.deps.config as { tossApiBaseUrl: string }).tossApiBaseUrl = fake.baseUrl;
    const ts = await createTestStore(t);
    await updateModeSettings(t.deps, ts.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
    const live = (await ts.newKey({ mode: 'live' })).key;
    const one = await createProduct(t, ts, { mode: 'live', price: 15_000, name: '전자책' });
    const cfg = (page: string) => JSON.parse(/var cfg = (\{.*?\});\n/s.exec(page)![1]);

    // The one-off payment's window (payment.requestPayment), the language chosen on the form.
    const session = await createSession(t, live, { productId: one.id });
    const ko = await submitPayForm(t, session, { method: 'card' });
    assert.equal(ko.statusCode, 200, ko.body.slice(0, 300));
    assert.match(ko.body, /<html lang="ko">/);
    assert.match(ko.body, /<h1>결제창을 여는 중입니다<\/h1>/);
    assert.match(ko.body, /id="lang-switch" href="[^"]*lang=en"/, 'a visible switch on the Korean page');
    assert.equal(cfg(ko.body).gatewayWords, true, "Toss's own (Korean) error text on a Korean page");
    const en = await submitPayForm(t, session, { method: 'card', lang: 'en' });
    assert.equal(en.statusCode, 200, en.body.slice(0, 300));
    assertAllEnglish(en.body, 'Toss payment launch page');
    assert.match(en.body, /<h1>Opening the payment window<\/h1>/);
    assert.match(en.body, /id="lang-switch" href="\/pay\/[^"]*lang=ko"/, 'the switch leads back to the form in Korean');
    assert.match(en.body, />Edit the payment details</);
    assert.equal(cfg(en.body).openFailed, payCopy('en').toss.openFailed, 'what the script shows is English too');
    assert.equal(cfg(en.body).gatewayWords, false, "an English page shows its own words, never Toss's Korean error text");
    assert.equal(cfg(en.body).request.orderId, cfg(ko.body).request.orderId, 'the same order whatever the language');
    // PayPal and overseas cards open Toss's English windows; the page around them is English too.
    const wallet = await submitPayForm(t, session, { method: 'kakao_pay', lang: 'en' });
    assertAllEnglish(wallet.body, 'Toss launch page for a wallet');

    // Toss's failUrl: its message is Korean; the English form says ours.
    const fail = `${payPath(session)}/toss/fail`;
    const closed = await get(`${fail}?${new URLSearchParams({ code: 'PAY_PROCESS_CANCELED', message: '사용자에 의해 결제가 취소되었습니다.', orderId: cfg(en.body).request.orderId })}`, EN);
    assert.equal(closed.statusCode, 422);
    assertAllEnglish(closed.body, 'Toss fail return: window closed');
    assert.match(closed.body, /You canceled the payment\./);
    const refused = await get(`${fail}?${new URLSearchParams({ code: 'REJECT_CARD_COMPANY', message: '카드사에서 거절했습니다.' })}`, EN);
    assertAllEnglish(refused.body, 'Toss fail return: refused');
    assert.match(refused.body, /The payment was not completed\. Please try again\./);
    const refusedKo = await get(`${fail}?${new URLSearchParams({ code: 'REJECT_CARD_COMPANY', message: '카드사에서 거절했습니다.', lang: 'ko' })}`);
    assert.match(refusedKo.body, /카드사에서 거절했습니다\./, "a Korean page keeps Toss's own message");

    // A subscription's card registration (payment.requestBillingAuth).
    const sub = await createSubscriptionProduct(t, ts, { mode: 'live', name: '멤버십' });
    const subSession = await createSession(t, live, { productId: sub.id, planId: 'basic', interval: 'monthly' });
    assert.match((await submitPayForm(t, subSession, { method: 'card' })).body, /<h1>결제 카드를 등록해 주세요<\/h1>/);
    const billing = await submitPayForm(t, subSession, { method: 'card', lang: 'en' });
    assert.equal(billing.statusCode, 200, billing.body.slice(0, 300));
    assertAllEnglish(billing.body, 'Toss card registration launch page');
    assert.match(billing.body, /<h1>Register your card<\/h1>/);
    assert.match(billing.body, /id="lang-switch" href="[^"]*lang=ko"/);
    assert.equal(cfg(billing.body).openFailed, payCopy('en').toss.billingOpenFailed);
    const billingClosed = await get(`${payPath(subSession)}/toss/fail?${new URLSearchParams({ code: 'PAY_PROCESS_CANCELED', message: '사용자에 의해 취소되었습니다.' })}`, EN);
    assertAllEnglish(billingClosed.body, 'Toss billing fail return');

    // The portal's card change on Toss: its switch reopens the same launch page in the other language.
    const portal = portalCardLaunchPage({ storeName: '테스트 상점', productName: '멤버십', clientKey: fake.clientKey, customerKey: 'sub_x', buyerName: '김구매', buyerEmail: 'a@example.com', returnBase: 'https://example.com/portal/x/card/y', portalPath: '/portal/x', nonce: 'n', lang: 'en', here: '/portal/x/card/y' });
    assertAllEnglish(portal, 'portal card change on Toss');
    assert.match(portal, /id="lang-switch" href="\/portal\/x\/card\/y\?lang=ko"/);
    assert.equal(cfg(portal).gatewayWords, false);
    const portalKo = portalCardLaunchPage({ storeName: '테스트 상점', productName: '멤버십', clientKey: fake.clientKey, customerKey: 'sub_x', buyerName: '김구매', buyerEmail: 'a@example.com', returnBase: 'https://example.com/portal/x/card/y', portalPath: '/portal/x', nonce: 'n', lang: 'ko', here: '/portal/x/card/y' });
    assert.match(portalKo, /<html lang="ko">/);
    assert.match(portalKo, /id="lang-switch" href="\/portal\/x\/card\/y\?lang=en"/);
  } finally {
    (t.deps.config as { tossApiBaseUrl: string }).tossApiBaseUrl = apiBase;
    await fake.close();
  }
});

test('refundTermsEn renders refundTerms line for line', () => {
  for (const licensed of [false, true]) {
    for (const type of ['one_time', 'subscription'] as const) {
      const terms = { refundDays: 14, licensed, trialOffered: true, restrictAfterUse: licensed, penaltyRate: 10, clawbackDisclosed: true } as never;
      assert.equal(refundTermsEn(terms, type).length, refundTerms(terms, type).length);
    }
  }
});
