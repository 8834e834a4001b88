import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, post, TEST_BUSINESS_DETAILS } from '../helpers/app';
import { owner } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { buy, DAY, file, getOrder, product, receipt, setup, type Ctx } from '../refunds/requests/helpers';

/**
 * The receipt states what 전자상거래법 제13조②·제18조 ask for, in Korean and in English (`?lang=en`): the effect of a
 * withdrawal (refund within 3 business days, 연 15% late-refund interest), complaints and dispute bodies with the
 * seller's contact, on a restricted product the restriction and why a request after use is not statutory, and on a
 * subscription's order the recurring terms. All from the order's terms as sold and the subscription row; a test-mode
 * subscription's receipt follows its test clock.
 */

let c: Ctx;

before(async () => {
  c = await setup();
});
after(async () => {
  await c.t.close();
});

const MONDAY_10_KST = '2026-11-02T01:00:00.000Z';

async function open(order: { receiptUrl: string }, lang?: 'en'): Promise<string> {
  const r = receipt(order);
  const res = await c.t.app.inject({ url: `${r.path}?t=${r.token}${lang ? `&lang=${lang}` : ''}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

/** The text of the element with this id (tags removed, entities of quotes and ampersands decoded, spaces collapsed). */
function text(body: string, id: string): string {
  const at = body.indexOf(`id="${id}"`);
  assert.ok(at >= 0, `#${id} is on the page`);
  const start = body.lastIndexOf('<', at);
  const tag = /^<(\w+)/.exec(body.slice(start))![1];
  // Same-named nested elements do not occur inside the ids read here (li, section, p, dd).
  const end = body.indexOf(`</${tag}>`, at);
  return body
    .slice(body.indexOf('>', at) + 1, end)
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const has = (body: string, id: string) => body.includes(`id="${id}"`);

test('a one-time order: the withdrawal period, its effect (3 business days, 연 15% interest), and complaints with the seller contact and dispute bodies, in Korean and English', async () => {
  c.t.clock.set(MONDAY_10_KST);
  const p = await product(c, { name: '전자책', price: 12_000 });
  const order = await buy(c, p.id);

  const ko = await open(order);
  assert.match(ko, /<html lang="ko">/);
  // paid Monday 11-02 (KST); day 7 is Monday 11-09, a business day
  assert.equal(text(ko, 'withdrawal-window'), '결제일로부터 7일 이내, 2026년 11월 9일 오후 11:59까지 청약철회(구매 취소)를 요청하면 결제 금액 전액을 환불받을 수 있습니다.');
  assert.match(text(ko, 'withdrawal-how'), /이 페이지의 ‘환불 요청하기’/);
  assert.match(text(ko, 'withdrawal-how'), /위약금이나 손해배상을 물지 않습니다/);
  assert.match(text(ko, 'withdrawal-effect'), /3영업일 이내에 결제 대금을 환불합니다/);
  assert.match(text(ko, 'withdrawal-effect'), /3영업일째 낮 12시\(한국 시간\)에 자동으로 승인/);
  assert.match(text(ko, 'late-interest'), /연 15%의 지연이자/);
  assert.match(text(ko, 'late-interest'), /제18조 제2항, 같은 법 시행령 제21조의3/);
  assert.match(text(ko, 'withdrawal-mismatch'), /공급받은 날부터 3개월 이내 또는 그 사실을 안 날\(알 수 있었던 날\)부터 30일 이내/);
  const contactKo = text(ko, 'seller-contact');
  assert.match(contactKo, new RegExp(`${TEST_BUSINESS_DETAILS.companyName} ${TEST_BUSINESS_DETAILS.supportPhone} · ${TEST_BUSINESS_DETAILS.supportEmail}`));
  assert.match(ko, /href="tel:0212345678"/);
  assert.match(text(ko, 'dispute-bodies'), /한국소비자원\(소비자상담센터 국번 없이 1372\)/);
  assert.match(text(ko, 'dispute-bodies'), /전자문서·전자거래분쟁조정위원회에 분쟁 조정/);
  assert.match(text(ko, 'disputes'), /전자상거래법 제13조 제2항/);
  assert.ok(!has(ko, 'restriction'), 'no restriction on a product without a trial and a marked restriction');
  assert.ok(!has(ko, 'recurring'), 'no recurring terms on a one-time order');
  assert.match(ko, /id="lang-switch" href="\/receipt\/[^"]+&amp;lang=en" hreflang="en" lang="en">English</);

  const en = await open(order, 'en');
  assert.match(en, /<html lang="en">/);
  assert.equal(text(en, 'order-status'), 'Paid');
  assert.equal(text(en, 'withdrawal-window'), 'You may withdraw from this purchase within 7 days of payment, until the end of Nov 9, 2026 (11:59 PM KST), and get the full amount back.');
  assert.match(text(en, 'withdrawal-how'), /no penalty or damages/);
  assert.match(text(en, 'withdrawal-effect'), /within 3 business days of receiving the request/);
  assert.match(text(en, 'withdrawal-effect'), /12:00 noon \(Korea time\) on the 3rd business day/);
  assert.match(text(en, 'late-interest'), /late-payment interest of 15% a year/);
  assert.match(text(en, 'late-interest'), /Article 18\(2\)/);
  assert.match(text(en, 'withdrawal-mismatch'), /within 3 months of receiving it, or within 30 days/);
  assert.match(text(en, 'seller-contact'), new RegExp(`${TEST_BUSINESS_DETAILS.companyName} ${TEST_BUSINESS_DETAILS.supportPhone} · ${TEST_BUSINESS_DETAILS.supportEmail}`));
  assert.match(text(en, 'dispute-bodies'), /Korea Consumer Agency \(consumer counselling: dial 1372 in Korea\)/);
  assert.match(text(en, 'dispute-bodies'), /E-Commerce Dispute Mediation Committee/);
  assert.match(text(en, 'window-hint'), /^Withdrawal period: until the end of Nov 9, 2026/);
  assert.match(en, /Business registration no\./, 'the footer is in English too');
  // Korean is asked for explicitly (lang=ko): without it an English browser's Accept-Language would choose English again.
  assert.match(en, /id="lang-switch" href="\/receipt\/[^"&]+\?t=[0-9a-f]{32}&amp;lang=ko" hreflang="ko" lang="ko">한국어</);
  assert.doesNotMatch(en, /<input type="hidden" name="lang" value="ko">/);
  assert.match(en, /<input type="hidden" name="lang" value="en">/);
});

test('the English page stays English through a refused and an accepted request (the language rides in the form)', async () => {
  c.t.clock.set(MONDAY_10_KST);
  const p = await product(c, { name: '강의', price: 10_000 });
  const order = await buy(c, p.id);
  const r = receipt(order);
  const postForm = (fields: Record<string, string>) =>
    c.t.app.inject({ method: 'POST', url: `${r.path}/refund-request`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
  const refused = await postForm({ t: r.token, lang: 'en', amount: '20000' });
  assert.equal(refused.statusCode, 409);
  assert.match(refused.body, /<html lang="en">/);
  assert.equal(text(refused.body, 'banner'), 'The refund amount cannot be more than what is refundable (₩10,000).');
  const filed = await postForm({ t: r.token, lang: 'en', amount: '' });
  assert.equal(filed.statusCode, 303);
  assert.match(String(filed.headers.location), /&lang=en&done=filed$/);
  const after = (await c.t.app.inject({ url: String(filed.headers.location) })).body;
  assert.match(text(after, 'banner'), /^Your refund request has been received/);
  // filed Monday 11-02 → business days 11-03, 11-04, 11-05: approved automatically at 12:00 KST on Thursday 11-05
  assert.match(text(after, 'auto-approval'), /at Nov 5, 2026, 12:00 PM KST\.$/);
  const ko = await open(order);
  assert.match(text(ko, 'auto-approval'), /2026년 11월 5일 오후 12:00에 자동으로 승인되어 환불됩니다/);
});

test('a restricted product (trial offered and restriction marked, as sold): the restriction and why a request after use is not statutory; activation shows on the receipt', async () => {
  c.t.clock.set(MONDAY_10_KST);
  const p = await product(c, { name: '데스크톱 앱', price: 30_000, license: { mode: 'service', maxActivations: 3, validityDays: null }, refundPolicy: { refundDays: 7, trialOffered: true, usageRestrictionMarked: true } });
  const order = await buy(c, p.id);

  let ko = await open(order);
  assert.match(text(ko, 'restriction'), /체험판을 제공했고, 라이선스 키를 기기에서 활성화해 사용하면 청약철회가 제한된다는 사실을 결제 전에 표시했습니다/);
  assert.match(text(ko, 'restriction-why'), /키를 활성화한 뒤에 한 환불 요청은 법정 청약철회가 아닙니다 \(전자상거래법 제17조 제2항 제5호·제6항\)/);
  assert.match(text(ko, 'restriction-why'), /자동으로 승인되지 않습니다/);
  assert.match(text(ko, 'restriction-state'), /아직 활성화되지 않았습니다/);
  assert.match(text(ko, 'withdrawal-window'), /2026년 11월 9일 오후 11:59까지 청약철회/);
  let en = await open(order, 'en');
  assert.match(text(en, 'restriction'), /offered a trial before purchase/);
  assert.match(text(en, 'restriction-why'), /not a statutory withdrawal \(Article 17\(2\)5 and 17\(6\) of the Act\)/);
  assert.match(text(en, 'restriction-state'), /No license key of this order has been activated yet/);

  const key = order.licenses[0].key;
  const act = await c.t.app.inject({ method: 'POST', url: '/v1/licenses/activate', payload: { key, productId: p.id, nonce: 'a'.repeat(64) } });
  assert.equal(act.statusCode, 200, act.body);
  ko = await open(order);
  assert.match(text(ko, 'restriction-state'), /이미 활성화되었습니다/);
  assert.match(text(ko, 'withdrawal-window'), /라이선스 키가 활성화되어 청약철회가 제한됩니다/);
  assert.ok(!has(ko, 'window-hint'), 'the form no longer offers a statutory withdrawal');
  en = await open(order, 'en');
  assert.match(text(en, 'restriction-state'), /has been activated/);
  assert.match(text(en, 'withdrawal-window'), /withdrawal is limited/);
  assert.equal((await file(c, order)).statutory, false, 'and the request filed after use is not statutory, as the receipt says');
});

test('the restriction statement follows the order\'s terms as sold, not a later product edit', async () => {
  c.t.clock.set(MONDAY_10_KST);
  const p = await product(c, { name: '플러그인', price: 20_000, license: { mode: 'service', maxActivations: 3, validityDays: null } });
  const order = await buy(c, p.id);
  const edit = await c.t.app.inject({ method: 'PATCH', url: `/admin/v1/products/${p.id}`, headers: owner(c.s), payload: { refundPolicy: { refundDays: 7, trialOffered: true, usageRestrictionMarked: true } } });
  assert.equal(edit.statusCode, 200, edit.body);
  const ko = await open(order);
  assert.ok(!has(ko, 'restriction'), 'sold without the restriction: the receipt never shows it');
  assert.match(ko, /라이선스 키를 기기에서 활성화해 사용했더라도 위 기간 안에는 청약철회할 수 있습니다/);
  const later = await buy(c, p.id);
  assert.ok(has(await open(later), 'restriction'), 'a sale after the edit carries the new terms');
});

test('a subscription order: next charge date and amount, how to cancel (the buyer portal) and what a cancel refunds; a scheduled cancel replaces the next charge', async () => {
  c.t.clock.set(MONDAY_10_KST);
  const p = await createSubscriptionProduct(c.t, c.s, { name: '멤버십', refundPolicy: { refundDays: 7, penaltyRate: 10, clawbackDisclosed: true } });
  const { orderId, subscriptionId } = await subscribe(c.t, c.s, { productId: p.id });
  const order = await getOrder(c, orderId);

  let ko = await open(order);
  assert.equal(text(ko, 'next-charge-date'), '2026년 12월 2일');
  assert.equal(text(ko, 'next-charge-amount'), '9,900원');
  assert.match(text(ko, 'recurring-state'), /해지하기 전까지 매월 다음 결제일에 등록한 카드로 자동 결제됩니다/);
  assert.match(text(ko, 'how-to-cancel'), /구독 관리 페이지\(구매자 포털\)에서 언제든 해지할 수 있습니다/);
  assert.match(text(ko, 'cancel-refund'), /이용한 일수만큼의 요금과 남은 금액의 10% 위약금을 뺀 금액을 환불합니다/);
  assert.match(text(ko, 'clawback'), /할인된 연간 요금제를 중도 해지하면/);
  assert.match(ko, /갱신 결제마다 그 결제일부터 같은 청약철회 기간이 새로 주어집니다/);
  // the statements every receipt has
  assert.match(text(ko, 'late-interest'), /연 15%/);
  assert.match(text(ko, 'dispute-bodies'), /1372/);
  let en = await open(order, 'en');
  assert.equal(text(en, 'next-charge-date'), 'Dec 2, 2026');
  assert.equal(text(en, 'next-charge-amount'), '₩9,900');
  assert.match(text(en, 'recurring-state'), /charged automatically every month/);
  assert.match(text(en, 'how-to-cancel'), /subscription management page \(buyer portal\)/);
  assert.match(text(en, 'cancel-refund'), /less the days used and a 10% penalty on the rest/);

  const cancel = await c.t.app.inject({ method: 'POST', url: `/v1/subscriptions/${subscriptionId}/cancel`, headers: post(c.s.key), payload: { timing: 'period_end' } });
  assert.equal(cancel.statusCode, 200, cancel.body);
  ko = await open(order);
  assert.ok(!has(ko, 'next-charge-date'));
  assert.equal(text(ko, 'recurring-state'), '해지가 예약되어 2026년 12월 2일에 구독이 끝나며, 더는 결제되지 않습니다.');
  en = await open(order, 'en');
  assert.equal(text(en, 'recurring-state'), 'Cancellation is scheduled: the subscription ends on Dec 2, 2026 and is not charged again.');

  c.t.clock.set('2026-11-03T01:00:00.000Z');
  const now = await c.t.app.inject({ method: 'POST', url: `/v1/subscriptions/${subscriptionId}/cancel`, headers: post(c.s.key), payload: { timing: 'immediate' } });
  assert.equal(now.statusCode, 200, now.body);
  assert.equal(text(await open(order), 'recurring-state'), '구독이 2026년 11월 3일에 종료되어 더는 결제되지 않습니다.');
  assert.equal(text(await open(order, 'en'), 'recurring-state'), 'The subscription ended on Nov 3, 2026 and is not charged again.');
});

test('a test-mode subscription\'s receipt follows its test clock: past the window it no longer offers a statutory withdrawal, and a renewal moves the next charge date', async () => {
  c.t.clock.set(MONDAY_10_KST);
  const p = await createSubscriptionProduct(c.t, c.s, { name: '클라우드 저장소' });
  const { orderId, subscriptionId } = await subscribe(c.t, c.s, { productId: p.id });
  const order = await getOrder(c, orderId);
  const oneTime = await buy(c, (await product(c, { name: '전자책', price: 5_000 })).id);
  const advance = (days: number) => c.t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${subscriptionId}/test-clock/advance`, headers: owner(c.s), payload: { days } });

  let ko = await open(order);
  assert.match(text(ko, 'window-hint'), /^청약철회 기간: 2026년 11월 9일 오후 11:59까지/);
  assert.match(text(ko, 'withdrawal-window'), /2026년 11월 9일 오후 11:59까지 청약철회/);

  assert.equal((await advance(10)).statusCode, 200);
  ko = await open(order);
  assert.ok(!has(ko, 'window-hint'), 'the subscription\'s own time is 11-12: the form offers no statutory withdrawal');
  assert.equal(text(ko, 'withdrawal-window'), '이 주문의 청약철회 기간(결제일로부터 7일, 2026년 11월 9일 오후 11:59까지)이 끝났습니다. 그 뒤의 환불 요청은 판매자가 환불 규정에 따라 검토합니다.');
  const en = await open(order, 'en');
  assert.match(text(en, 'withdrawal-window'), /^The withdrawal period of this order \(7 days from payment\) ended at the end of Nov 9, 2026 \(11:59 PM KST\)/);
  // The service clock did not move: an order outside the subscription, paid at the same moment, is still in its window.
  assert.match(text(await open(oneTime), 'withdrawal-window'), /2026년 11월 9일 오후 11:59까지 청약철회/);
  const rr = await file(c, order);
  assert.equal(rr.statutory, false, 'filed on the subscription\'s clock, after its window');
  assert.equal(rr.requestedAt, new Date(Date.parse(MONDAY_10_KST) + 10 * DAY).toISOString());
  const reject = await c.t.app.inject({ method: 'POST', url: `/v1/refund-requests/${rr.id}/reject`, headers: post(c.s.key), payload: { reason: '기간 경과' } });
  assert.equal(reject.statusCode, 200, reject.body);
  assert.equal(reject.json().decidedAt, rr.requestedAt, 'decided on the same clock it was filed on, never before the filing');
  assert.match(text(await open(order), 'request-history'), /2026년 11월 12일 오전 10:00 · 거절 사유: 기간 경과/);

  assert.equal((await advance(21)).statusCode, 200); // past 12-02: renewed
  const sub = (await c.t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(c.s.key) })).json();
  assert.equal(sub.currentPeriodEnd, '2027-01-02T01:00:00.000Z');
  ko = await open(order);
  assert.equal(text(ko, 'next-charge-date'), '2027년 1월 2일');
  const renewal = await getOrder(c, sub.latestOrderId);
  const renewalKo = await open(renewal);
  // the renewal was paid 12-03 10:00 KST on the subscription's clock: its own 7-day window, open on that clock
  assert.match(text(renewalKo, 'withdrawal-window'), /2026년 12월 10일 오후 11:59까지 청약철회/);
  assert.match(text(renewalKo, 'window-hint'), /2026년 12월 10일 오후 11:59까지/);
});
