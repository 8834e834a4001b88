import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, createSessionRaw, createSubscriptionProduct, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { runMailOnce } from '../../src/mail/dispatch';
import { MAIL_KINDS } from '../../src/mail/kinds';
import { renderMail } from '../../src/mail/render';
import type { MailLang } from '../../src/mail/render-input';
import { getBusinessDetails } from '../../src/stores/business-details';
import type { BusinessDetailsView } from '../../src/stores/schemas';

/**
 * English buyer mails (issue 21 item 3): the checkout session's `locale` is recorded on the order and the
 * subscription, and every mail kind renders in the buyer's language; Korean stays the default.
 */

let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const HANGUL = /[\u1100-\u11FF\u3130-\u318F\uAC00-\uD7AF]/;
const BUYER_EN = { buyerName: 'Jane Doe', cardNumber: TEST_CARDS.success };

/** The text with the store's own name and its business details taken out: what is left must hold no Hangul. */
function withoutStoreWords(text: string, storeName: string, b: BusinessDetailsView | null): string {
  let out = text.split(storeName).join('');
  if (b) for (const v of [b.companyName, b.representative, b.businessNumber, b.mailOrderNumber, b.address, b.supportPhone, b.supportEmail]) if (v) out = out.split(v).join('');
  return out;
}

async function mailsFor(kind: string, match: (data: any) => boolean) {
  const rows = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', kind).execute();
  return rows.filter((r) => match(r.data));
}
async function capturedOne(kind: string, match: (data: any) => boolean) {
  await runMailOnce(t.deps, t.clock.now());
  const rows = await mailsFor(kind, match);
  assert.equal(rows.length, 1, `one ${kind} mail`);
  assert.equal(rows[0].status, 'captured');
  return rows[0];
}
async function assertEnglish(m: { subject: string | null; text_body: string | null; html_body: string | null }) {
  const b = await getBusinessDetails(t.db, s.storeId);
  const storeName = (await t.db.selectFrom('stores').select('name').where('id', '=', s.storeId).executeTakeFirstOrThrow()).name;
  for (const part of [m.subject!, m.text_body!]) assert.doesNotMatch(withoutStoreWords(part, storeName, b), HANGUL, part);
  assert.match(m.html_body!, /<html lang="en">/);
}

test('locale is validated (only ko or en) and stored on the session', async () => {
  const p = await createProduct(t, s, { name: 'E-book' });
  const res = await createSessionRaw(t, s.key, { productId: p.id, locale: 'fr' });
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().code, 'VALIDATION_FAILED');
  // Stored on the session; the session object keeps exactly the contract's fields.
  const withKey = await createSession(t, s.key, { productId: p.id, locale: 'en' });
  assert.equal((await t.db.selectFrom('checkout_sessions').select('locale').where('id', '=', withKey.id).executeTakeFirstOrThrow()).locale, 'en');
  assert.equal('locale' in withKey, false);
});

test("a session with locale 'en' -> paid -> the order records it and its confirmation is English (subject, text, html lang, receipt lang=en, licence key)", async () => {
  const p = await createProduct(t, s, { name: 'E-book', license: { mode: 'service' } });
  const session = await createSession(t, s.key, { productId: p.id, locale: 'en', successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, BUYER_EN);
  assert.equal(res.statusCode, 303, res.body);
  t.clock.advance(1000);
  const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
  const order = await t.db.selectFrom('orders').select(['locale']).where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(order.locale, 'en');

  const m = await capturedOne('order_confirmation', (d) => d.id === orderId);
  const key = (m.data as any).licenses[0].key as string;
  assert.ok(key);
  assert.match(m.subject!, /\] Your order is complete$/);
  for (const body of [m.text_body!, m.html_body!]) {
    assert.ok(body.includes(key), 'the licence key is in the mail');
    assert.ok(body.includes('₩15,000'), 'amounts as on the English receipt');
    assert.ok(body.includes('Business registration no.'), 'the footer labels are English');
    assert.match(body, /KST/, 'dates are English, in Korea time');
  }
  assert.match(m.text_body!, /License keys:/);
  assert.match(m.text_body!, new RegExp(`View the receipt: \\S+/receipt/${orderId}\\?t=\\S+&lang=en`));
  assert.match(m.html_body!, new RegExp(`href="[^"]+/receipt/${orderId}\\?t=[^"]+&amp;lang=en"`));
  await assertEnglish(m);
  // The English receipt link opens the English receipt.
  const link = /View the receipt: (\S+)/.exec(m.text_body!)![1];
  const u = new URL(link);
  const page = await t.app.inject({ url: u.pathname + u.search });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<html lang="en"/);
});

test('without a locale the session, the order and its mail stay Korean', async () => {
  const p = await createProduct(t, s, { name: 'E-book' });
  const session = await createSession(t, s.key, { productId: p.id, successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, BUYER_EN);
  assert.equal(res.statusCode, 303, res.body);
  t.clock.advance(1000);
  const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
  assert.equal((await t.db.selectFrom('orders').select('locale').where('id', '=', orderId).executeTakeFirstOrThrow()).locale, 'ko');
  const m = await capturedOne('order_confirmation', (d) => d.id === orderId);
  assert.match(m.subject!, /주문이 완료되었습니다/);
  assert.match(m.html_body!, /<html lang="ko">/);
  assert.ok(m.text_body!.includes('15,000원'));
  assert.doesNotMatch(m.text_body!, /lang=en/);
});

test("a subscription with locale 'en': recorded on it; its renewal receipt and payment-failed mails are English", async () => {
  const p = await createSubscriptionProduct(t, s, { name: 'Membership', plans: [{ id: 'basic', name: 'Basic', monthlyPrice: 9_900, yearlyPrice: 99_000 }] });
  const start = async (cardNumber: string) => {
    const session = await createSession(t, s.key, { productId: p.id, planId: 'basic', interval: 'monthly', locale: 'en', successUrl: 'https://example.com/ok' });
    const res = await submitPayForm(t, session, { ...BUYER_EN, cardNumber });
    assert.equal(res.statusCode, 303, res.body);
    const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
    const o = await t.db.selectFrom('orders').select(['subscription_id']).where('id', '=', orderId).executeTakeFirstOrThrow();
    return { orderId, subscriptionId: o.subscription_id! };
  };
  const ok = await start(TEST_CARDS.success);
  const declined = await start(TEST_CARDS.renewalDeclined);
  const sub = await t.db.selectFrom('subscriptions').selectAll().where('id', '=', ok.subscriptionId).executeTakeFirstOrThrow();
  assert.equal(sub.locale, 'en');

  const started = await capturedOne('subscription_started', (d) => d.id === ok.orderId);
  assert.match(started.subject!, /Your subscription has started/);
  assert.match(started.text_body!, /Billing cycle: Monthly/);
  await assertEnglish({ ...started, text_body: started.text_body!.replace(/"[^"]*"$/m, '') });

  t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const renewal = await capturedOne('renewal_receipt', (d) => d.subscriptionId === ok.subscriptionId);
  assert.match(renewal.subject!, /Receipt for your recurring payment/);
  assert.ok(renewal.text_body!.includes('₩9,900'));
  assert.match(renewal.text_body!, /lang=en/);
  await assertEnglish(renewal);
  const renewalOrder = await t.db.selectFrom('orders').select('locale').where('id', '=', (renewal.data as any).id).executeTakeFirstOrThrow();
  assert.equal(renewalOrder.locale, 'en', 'a renewal order carries the subscription locale');

  const failed = await capturedOne('payment_failed', (d) => d.id === declined.subscriptionId);
  assert.match(failed.subject!, /Your recurring payment failed/);
  assert.match(failed.text_body!, /Next retry: .+KST/);
  const link = /Change the card: (\S+)/.exec(failed.text_body!)?.[1];
  assert.ok(link, failed.text_body!);
  await assertEnglish(failed);
  t.clock.set('2026-11-01T00:00:00.000Z');
});

/** One representative input per kind: every field a kind reads is there. */
function sample(kind: (typeof MAIL_KINDS)[number]) {
  const order = {
    id: 'ord_1',
    productName: 'Pro Plan',
    buyerName: 'Jane Doe',
    amount: 9_900,
    refundedAmount: 9_900,
    paidAt: '2026-11-01T06:05:00.000Z',
    planId: 'basic',
    billingInterval: 'monthly',
    periodStart: '2026-11-01T00:00:00.000Z',
    periodEnd: '2026-12-01T00:00:00.000Z',
    receiptUrl: 'https://pay.example.com/receipt/ord_1?t=tok',
    licenses: [{ id: 'lic_1', key: 'KEY-AAAA-BBBB', status: 'active', expiresAt: null }],
  };
  const subscription = {
    id: 'sub_1',
    productName: 'Pro Plan',
    planId: 'basic',
    billingInterval: 'monthly',
    amount: 9_900,
    currentPeriodEnd: '2026-12-01T00:00:00.000Z',
    nextRetryAt: '2026-12-02T00:00:00.000Z',
    endedAt: '2026-12-01T00:00:00.000Z',
    endReason: 'price_change_declined',
    trialEndsAt: '2026-11-15T00:00:00.000Z',
  };
  const change = { renewsAt: '2026-12-01T00:00:00.000Z', amount: 99_000, trialEndsAt: '2026-11-15T00:00:00.000Z', interval: 'yearly', effectiveAt: '2027-01-01T00:00:00.000Z', currentAmount: 9_900, newAmount: 12_900, decideBy: '2026-12-31T00:00:00.000Z', nextRetryAt: '2026-12-02T00:00:00.000Z' };
  const data = { ...order, orderId: 'ord_1', requestedAt: '2026-11-02T00:00:00.000Z', reason: 'changed my mind', status: 'approved', decisionReason: 'ok', approvedAmount: 9_900, refund: { amount: 9_900 }, order, change };
  return { kind, data, order: order as any, subscription, portalUrl: 'https://pay.example.com/portal/x' };
}

test('every kind renders in both languages: English has no Hangul outside the store name and business details; Korean is unchanged', async () => {
  const business = await getBusinessDetails(t.db, s.storeId);
  assert.ok(business, 'the test store has Korean business details, kept as they are');
  const storeName = '테스트 상점';
  const seen = new Set<string>();
  for (const kind of MAIL_KINDS) {
    const out: Record<MailLang, ReturnType<typeof renderMail>> = {
      ko: renderMail({ ...sample(kind), storeName, business, lang: 'ko' }),
      en: renderMail({ ...sample(kind), storeName, business, lang: 'en' }),
    };
    // Korean: the default, Korean words, Korean money and dates.
    assert.match(out.ko.subject, HANGUL, kind);
    assert.match(out.ko.html, /<html lang="ko">/);
    assert.match(out.ko.text, /\d{4}년 \d+월 \d+일|[\d,]+원/, kind);
    assert.deepEqual(renderMail({ ...sample(kind), storeName, business }), out.ko, `${kind}: Korean without a language`);
    // English: nothing Korean but the seller's own words.
    for (const part of [out.en.subject, out.en.text]) assert.doesNotMatch(withoutStoreWords(part, storeName, business), HANGUL, `${kind}: ${part}`);
    assert.match(out.en.html, /<html lang="en">/);
    assert.match(out.en.text, /₩[\d,]+|KST/, kind);
    assert.doesNotMatch(out.en.text, /[\d,]+원/, kind);
    if (out.en.text.includes('/receipt/')) assert.match(out.en.text, /\/receipt\/ord_1\?t=tok&lang=en/, kind);
    assert.notEqual(out.en.subject, out.ko.subject);
    seen.add(kind);
  }
  assert.equal(seen.size, MAIL_KINDS.length);
});
