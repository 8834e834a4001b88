import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer, post, type TestApp, type TestStore } from '../helpers/app';
import { createSession, owner, payPath, submitPayForm } from '../checkout/factory';
import { createSubscriptionProduct, subscribe } from './factory';
import { TEST_CARDS } from '../../src/payments';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { trialEmailKey, trialPhoneKey } from '../../src/subscriptions/trials/identity';

// Issue 30, finding 4: a product's free trial once per buyer (e-mail and card), unless the store allows more; and an
// e-mail the seller fixed on the session cannot be replaced on the payment page.
let t: TestApp;
let s: TestStore;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(async () => {
  await t.close();
});

const trialProduct = () => createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
const session = (productId: string, extra: Record<string, unknown> = {}) =>
  createSession(t, s.key, { productId, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok', ...extra });
const subscriptionsOf = (productId: string) => t.db.selectFrom('subscriptions').select(['id', 'buyer_email']).where('product_id', '=', productId).execute();
const TRIAL_USED = '이 상품의 무료 체험은 이미 이용하셨습니다';

test('a second free trial of the same product is refused, by e-mail or by card, and nothing is charged; another product, or a store that allows repeat trials, starts one', async () => {
  const p = await trialProduct();
  await subscribe(t, s, { productId: p.id, buyerEmail: 'first@example.com' });

  // The same e-mail (another case) with another card: refused on the page before any card is registered.
  const again = await session(p.id);
  const byEmail = await submitPayForm(t, again, { buyerEmail: 'First@Example.com', cardNumber: TEST_CARDS.refundFails });
  assert.equal(byEmail.statusCode, 422, byEmail.body);
  assert.ok(byEmail.body.includes(TRIAL_USED));
  // The same card under another e-mail: refused once the gateway has registered the card (its fingerprint matches).
  const byCard = await submitPayForm(t, again, { buyerEmail: 'second@example.com', cardNumber: TEST_CARDS.success });
  assert.equal(byCard.statusCode, 422, byCard.body);
  assert.ok(byCard.body.includes(TRIAL_USED));
  assert.equal((await subscriptionsOf(p.id)).length, 1, 'no second trial');
  const orders = await t.db.selectFrom('orders').select('id').where('product_id', '=', p.id).execute();
  assert.equal(orders.length, 1, 'no order, no charge');
  const view = (await t.app.inject({ url: `/v1/checkout/sessions/${again.id}`, headers: bearer(s.key) })).json();
  assert.equal(view.status, 'open');

  // Another buyer with another card starts a trial; another product's trial is open to the first buyer.
  assert.equal((await submitPayForm(t, again, { buyerEmail: 'second@example.com', buyerPhone: '010-2222-3333', cardNumber: TEST_CARDS.refundFails })).statusCode, 303);
  const other = await trialProduct();
  await subscribe(t, s, { productId: other.id, buyerEmail: 'first@example.com' });

  // The store's setting: repeat trials allowed.
  const off = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(s), payload: { allowRepeatTrials: true } });
  assert.equal(off.statusCode, 200, off.body);
  assert.equal(off.json().allowRepeatTrials, true);
  await subscribe(t, s, { productId: p.id, buyerEmail: 'first@example.com' });
  assert.equal((await subscriptionsOf(p.id)).length, 3);
  const on = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: owner(s), payload: { allowRepeatTrials: false } });
  assert.equal(on.json().allowRepeatTrials, false);
  assert.equal((await t.app.inject({ url: '/admin/v1/store', headers: owner(s) })).json().allowRepeatTrials, false);
});

test('customerEmailLocked: the page shows the seller\'s e-mail read-only, a POST with another e-mail is refused, the locked one pays and the subscription is that address\'s', async () => {
  const p = await createSubscriptionProduct(t, s);
  const missing = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: p.id, planId: 'basic', interval: 'monthly', customerEmailLocked: true } });
  assert.equal(missing.statusCode, 400, missing.body);
  assert.equal(missing.json().code, 'VALIDATION_FAILED');
  assert.equal(missing.json().details.fields[0].field, 'customer.email');

  const cs = await session(p.id, { customer: { email: 'member@example.com' }, customerEmailLocked: true });
  assert.equal(cs.customer.email, 'member@example.com');
  const page = await t.app.inject({ url: payPath(cs) });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<input id="buyerEmail" name="buyerEmail" value="member@example.com" type="email" readonly/);
  assert.ok(page.body.includes('판매자가 지정한 이메일입니다'));

  const swapped = await submitPayForm(t, cs, { buyerEmail: 'someone-else@example.com', cardNumber: TEST_CARDS.success });
  assert.equal(swapped.statusCode, 422, swapped.body);
  assert.ok(swapped.body.includes('이 결제의 이메일은 판매자가 지정해 바꿀 수 없습니다.'));
  assert.equal((await subscriptionsOf(p.id)).length, 0, 'nothing paid');

  const paid = await submitPayForm(t, cs, { buyerEmail: 'Member@Example.com', cardNumber: TEST_CARDS.success });
  assert.equal(paid.statusCode, 303, paid.body);
  const subs = await subscriptionsOf(p.id);
  assert.equal(subs.length, 1);
  assert.equal(subs[0].buyer_email.toLowerCase(), 'member@example.com');

  // Without the flag the e-mail stays a prefill the buyer may change.
  const free = await session(p.id, { customer: { email: 'member@example.com' } });
  assert.equal((await submitPayForm(t, free, { buyerEmail: 'other@example.com', cardNumber: TEST_CARDS.success })).statusCode, 303);
});

test('trial identity is normalised: Gmail dots, +tags and googlemail.com are one box; +tags of plus-addressing providers; a phone however written; other providers keep their dots and plus signs', () => {
  for (const e of ['trial@gmail.com', 't.rial@gmail.com', 'trial+2@gmail.com', ' T.R.I.A.L+promo@GoogleMail.com ']) assert.equal(trialEmailKey(e), 'trial@gmail.com', e);
  assert.equal(trialEmailKey('kim+shop@outlook.com'), 'kim@outlook.com');
  assert.equal(trialEmailKey('kim+shop@icloud.com'), 'kim@icloud.com');
  assert.equal(trialEmailKey('Kim.Lee@Naver.com'), 'kim.lee@naver.com', 'dots kept outside Gmail');
  assert.notEqual(trialEmailKey('kim.lee@naver.com'), trialEmailKey('kimlee@naver.com'));
  assert.equal(trialEmailKey('kim+shop@naver.com'), 'kim+shop@naver.com', 'a + kept where the provider is not known to ignore it');
  assert.equal(trialEmailKey(''), null);
  assert.equal(trialEmailKey('+tag@gmail.com'), null);
  for (const p of ['010-1234-5678', '01012345678', '010 1234 5678', '(010) 1234.5678', '+82 10-1234-5678', '+82-010-1234-5678', '0082 10 1234 5678', '821012345678']) assert.equal(trialPhoneKey(p), '01012345678', p);
  assert.equal(trialPhoneKey('02-123-4567'), '021234567');
  assert.equal(trialPhoneKey('123'), null);
  assert.equal(trialPhoneKey(''), null);
});

test('a trial is not given again to the same Gmail box written otherwise, nor to the same phone written otherwise (another card each time); a different person is', async () => {
  const p = await trialProduct();
  await subscribe(t, s, { productId: p.id, buyerEmail: 'trial@gmail.com', buyerPhone: '010-5555-0101' });
  const row = await t.db.selectFrom('subscriptions').select(['trial_email_key', 'trial_phone_key']).where('product_id', '=', p.id).executeTakeFirstOrThrow();
  assert.deepEqual(row, { trial_email_key: 'trial@gmail.com', trial_phone_key: '01055550101' }, 'stored normalised');

  const again = await session(p.id);
  const variants = [
    { buyerEmail: 't.rial@gmail.com', buyerPhone: '010-7777-0001' },
    { buyerEmail: 'trial+2@gmail.com', buyerPhone: '010-7777-0002' },
    { buyerEmail: 'Trial@googlemail.com', buyerPhone: '010-7777-0003' },
    { buyerEmail: 'someone@example.com', buyerPhone: '+82 10-5555-0101' },
    { buyerEmail: 'another@example.com', buyerPhone: '01055550101' },
  ];
  for (const v of variants) {
    const res = await submitPayForm(t, again, { ...v, cardNumber: TEST_CARDS.refundFails });
    assert.equal(res.statusCode, 422, `${JSON.stringify(v)}: ${res.statusCode}`);
    assert.ok(res.body.includes(TRIAL_USED), JSON.stringify(v));
  }
  assert.equal((await subscriptionsOf(p.id)).length, 1, 'no second trial');
  assert.equal((await t.db.selectFrom('orders').select('id').where('product_id', '=', p.id).execute()).length, 1, 'no order, no charge');

  // A different person (another box, another phone, another card) starts a trial.
  const other = await submitPayForm(t, again, { buyerEmail: 'trial2@gmail.com', buyerPhone: '010-8888-0202', cardNumber: TEST_CARDS.refundFails });
  assert.equal(other.statusCode, 303, other.body.slice(0, 300));
  assert.equal((await subscriptionsOf(p.id)).length, 2);
});

test('migration 092 backfills the keys of trials started before it with the same rule as the code', async () => {
  const p = await trialProduct();
  const { subscriptionId } = await subscribe(t, s, { productId: p.id, buyerEmail: 'backfill@example.com' });
  const cases: Array<[string, string]> = [
    [' B.Ack+Fill@GoogleMail.com', '+82 010-3333-4444'], ['kim+x@hotmail.com', '0082-10-1234-0000'], ['Kim.Lee+x@naver.com', '(02) 555-1234'], ['x@y.example', '12'],
  ];
  const statements = readFileSync(join(process.cwd(), 'src/db/migrations/092_trial_identity_keys.sql'), 'utf8')
    .replace(/^--.*$/gm, '')
    .split(';')
    .map((x) => x.trim())
    .filter((x) => x.startsWith('with'));
  assert.equal(statements.length, 2, 'the two backfill statements');
  for (const [email, phone] of cases) {
    await t.db.updateTable('subscriptions').set({ buyer_email: email, buyer_phone: phone, trial_email_key: null, trial_phone_key: null }).where('id', '=', subscriptionId).execute();
    for (const st of statements) await sql.raw(st).execute(t.db);
    const row = await t.db.selectFrom('subscriptions').select(['trial_email_key', 'trial_phone_key']).where('id', '=', subscriptionId).executeTakeFirstOrThrow();
    assert.deepEqual(row, { trial_email_key: trialEmailKey(email), trial_phone_key: trialPhoneKey(phone) }, `${email} / ${phone}`);
  }
});
