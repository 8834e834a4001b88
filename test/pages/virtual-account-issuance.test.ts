import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore, bearer } from '../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../checkout/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { updateModeSettings } from '../../src/stores/service';
import { ManualClock } from '../../src/platform/clock';
import { runMailOnce } from '../../src/mail/dispatch';
import { kst } from '../../src/pages/html';

/**
 * When a 가상계좌 is issued the buyer is shown where, how much and by when before anything else, and mailed the same
 * facts. Before: a session with a successUrl sent the buyer straight to the seller's page (303) on issuance, so the
 * account, amount and deadline were seen only on the receipt, and the first mail came after the deposit.
 */

let t: TestApp;
let s: TestStore;
let fake: FakeToss;
let live: string;

before(async () => {
  const clock = new ManualClock();
  fake = await startFakeToss({ kind: 'live', clock });
  t = await createTestApp({ clock, config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  live = (await s.newKey({ mode: 'live' })).key;
});
after(async () => {
  await t.close();
  await fake.close();
});

const orderOf = async (sessionId: string) => (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', sessionId).executeTakeFirstOrThrow()).order_id!;
const getOrder = async (key: string, id: string) => (await t.app.inject({ url: `/v1/orders/${id}`, headers: bearer(key) })).json();

/** The facts the issuance page must show, each in its own element. */
function assertIssuancePage(body: string, order: any, successUrl: string) {
  const va = order.virtualAccount;
  assert.match(body, /가상계좌가 발급되었습니다/);
  // The bank's and holder's names are their own (translate="no", shown as registered on the English page too).
  assert.ok(body.includes(`<dd id="va-bank" translate="no">${va.bankName}</dd>`), 'bank');
  assert.ok(body.includes(`<code id="va-account" tabindex="0">${va.accountNumber}</code>`), 'account number');
  assert.match(body, /data-copy="va-account"/, 'a copy button for the number');
  assert.ok(body.includes(`<dd id="va-holder" translate="no">${va.holderName}</dd>`), 'holder');
  assert.ok(body.includes(`<dd class="total" id="va-amount">${order.amount.toLocaleString('en-US')}원</dd>`), 'exact amount');
  assert.ok(body.includes(`<dd id="va-due">${kst(new Date(va.dueAt))} (한국 시간)</dd>`), 'deadline: date and minute, KST');
  const onward = new URL(successUrl);
  onward.searchParams.set('order_id', order.id);
  assert.ok(body.includes(`id="va-onward" href="${onward.toString().replace(/&/g, '&amp;')}`), 'a link onward to the seller');
  assert.ok(body.includes(`id="va-receipt" href="${order.receiptUrl.replace(/&/g, '&amp;')}"`), 'a link to the receipt');
}

test('test mode: with a successUrl, issuance shows the account page (not a redirect), again on reload; the buyer is mailed the same facts in Korean', async () => {
  const p = await createProduct(t, s, { name: '사진 보정 강의', price: 30_000 });
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/thanks?from=pay' });
  assert.equal((await submitPayForm(t, session, { method: 'virtual_account' })).statusCode, 303);
  const issued = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
  assert.equal(issued.statusCode, 200, `not sent to the seller's page: ${issued.headers.location ?? ''}`);
  const order = await getOrder(s.key, await orderOf(session.id));
  assert.equal(order.status, 'awaiting_deposit');
  assertIssuancePage(issued.body, order, 'https://example.com/thanks?from=pay');
  const again = await t.app.inject({ url: payPath(session) });
  assert.equal(again.statusCode, 200);
  assertIssuancePage(again.body, order, 'https://example.com/thanks?from=pay');

  // The mail is written with the event, in its transaction (the mail's event is order.awaiting_deposit itself).
  const [mail] = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'virtual_account_issued').where('recipient', '=', order.buyerEmail).execute();
  assert.ok(mail, 'a virtual_account_issued mail');
  const event = await t.db.selectFrom('events').select(['id', 'type']).where('id', '=', mail.event_id).executeTakeFirstOrThrow();
  assert.equal(event.type, 'order.awaiting_deposit');
  await runMailOnce(t.deps, t.clock.now());
  const sent = await t.db.selectFrom('mail_outbox').selectAll().where('id', '=', mail.id).executeTakeFirstOrThrow();
  assert.equal(sent.status, 'captured');
  const va = order.virtualAccount;
  for (const line of [`은행: ${va.bankName}`, `계좌번호: ${va.accountNumber}`, `예금주: ${va.holderName}`, '입금할 금액: 30,000원', `입금 기한: ${kst(new Date(va.dueAt))} KST`, `주문 번호: ${order.id}`]) {
    assert.ok(sent.text_body!.includes(line), `the mail says ${line}`);
  }
  assert.ok(sent.text_body!.includes(order.receiptUrl), 'with the receipt link');
  assert.match(sent.subject!, /가상계좌가 발급되었습니다/);
});

test('an English buyer gets the mail in English, with the deadline in KST', async () => {
  const p = await createProduct(t, s, { name: 'Photo course', price: 45_000 });
  const session = await createSession(t, s.key, { productId: p.id, locale: 'en' });
  await submitPayForm(t, session, { method: 'virtual_account' });
  assert.equal((await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' })).statusCode, 200);
  const order = await getOrder(s.key, await orderOf(session.id));
  await runMailOnce(t.deps, t.clock.now());
  const sent = (await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'virtual_account_issued').execute()).find((m) => (m.data as any).id === order.id)!;
  assert.equal(sent.status, 'captured');
  assert.match(sent.subject!, /virtual account is ready/);
  assert.ok(sent.text_body!.includes(`Account number: ${order.virtualAccount.accountNumber}`));
  assert.ok(sent.text_body!.includes('Amount to deposit: ₩45,000'));
  assert.match(sent.text_body!, /Deposit by: .* KST/);
});

test('live (Toss): the success return of an issued 가상계좌 shows the account page before the successUrl, and a reload of that return does too', async () => {
  const price = 52_000;
  const product = await createProduct(t, s, { mode: 'live', price, stock: 3 });
  const session = await createSession(t, live, { productId: product.id, successUrl: 'https://example.com/done' });
  const orderId = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).pending_order_id;
  assert.equal((await submitPayForm(t, session, { method: 'virtual_account' })).statusCode, 200);
  const paymentKey = `tpk_vaccount_${orderId}`;
  fake.requestPayment({ paymentKey, orderId, amount: price });
  const returnUrl = `${payPath(session)}/toss/success?${new URLSearchParams({ paymentKey, orderId, amount: String(price) })}`;
  const res = await t.app.inject({ url: returnUrl });
  assert.equal(res.statusCode, 200, `not redirected: ${res.headers.location ?? ''}`);
  const order = await getOrder(live, orderId);
  assert.equal(order.virtualAccount.accountNumber, fake.payments.get(paymentKey).virtualAccount.accountNumber);
  assertIssuancePage(res.body, order, 'https://example.com/done');
  const reload = await t.app.inject({ url: returnUrl });
  assert.equal(reload.statusCode, 200);
  assertIssuancePage(reload.body, order, 'https://example.com/done');
  // The live buyer is mailed too (sent once SMTP is configured).
  assert.equal((await t.db.selectFrom('mail_outbox').select('kind').where('kind', '=', 'virtual_account_issued').where('mode', '=', 'live').execute()).length, 1);
});
