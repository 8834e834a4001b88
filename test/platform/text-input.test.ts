import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, bearer, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, owner } from '../checkout/factory';
import { insertPaidOrder } from '../refunds/factory';
import { isValidEmail, hasBidiControl } from '../../src/platform/text';
import { checkBusinessDetails } from '../../src/stores/business-details';
import { validateBuyer, type FormValues } from '../../src/pages/form';
import { createMember } from '../../src/dashboard/members';
import { ApiError } from '../../src/platform/errors';

// E-mail addresses follow the HTML standard's grammar; free text shown to other people refuses bidi controls.
const RLO = '\u202E';
const BIDI = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
const BAD_EMAILS = ['"kim lee"@example.com', '"a"@example.com', `kim${RLO}@example.com`, `kim@exa${RLO}mple.com`, 'kim@-example.com', 'kim@example..com', 'kim@@example.com', 'kim@[127.0.0.1]', 'kim@localhost', '김@example.com', `${'a'.repeat(250)}@e.kr`];
const GOOD_EMAILS = ['kim@example.com', 'kim.lee+shop@sub.example.co.kr', "o'brien@example.com", 'a_b-c@x-y.example'];

let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(() => t.close());

test('the shared rules: the HTML e-mail grammar and the bidi controls', () => {
  for (const e of GOOD_EMAILS) assert.ok(isValidEmail(e), e);
  for (const e of BAD_EMAILS) assert.ok(!isValidEmail(e), e);
  for (const c of BIDI) assert.ok(hasBidiControl(`abc${c}def`), c.codePointAt(0)!.toString(16));
  assert.ok(!hasBidiControl('전자책 — “정상” 이름 (한글/English) ‍'));
});

test('checkout: customer.email follows the e-mail grammar and customer.name refuses bidi controls (VALIDATION_FAILED naming the field)', async () => {
  const p = await createProduct(t, s);
  for (const email of ['"kim lee"@example.com', `kim${RLO}@example.com`]) {
    const res = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: p.id, customer: { email } } });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'VALIDATION_FAILED');
    assert.equal(res.json().details.fields[0].field, 'customer.email');
  }
  const named = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: p.id, customer: { name: `김${RLO}구매` } } });
  assert.equal(named.statusCode, 400, named.body);
  assert.equal(named.json().code, 'VALIDATION_FAILED');
  assert.equal(named.json().details.fields[0].field, 'customer.name');
  assert.match(named.json().details.fields[0].message, /customer\.name에는 글자 방향을 바꾸는 제어 문자/);
  const ok = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: p.id, customer: { name: '김구매', email: 'kim.lee+shop@example.co.kr' } } });
  assert.equal(ok.statusCode, 200, ok.body);
});

test('product names and descriptions, refund reasons and store names refuse bidi controls', async () => {
  const product = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: owner(s), payload: { mode: 'test', type: 'one_time', name: `invoice${RLO}fdp.exe`, pricing: { price: 1000 } } });
  assert.equal(product.statusCode, 400, product.body);
  assert.deepEqual(product.json().details.fields.map((f: { field: string }) => f.field), ['name']);
  const described = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: owner(s), payload: { mode: 'test', type: 'one_time', name: '전자책', description: `설명\u2067`, pricing: { price: 1000 } } });
  assert.equal(described.statusCode, 400, described.body);
  assert.equal(described.json().details.fields[0].field, 'description');

  const p = await createProduct(t, s);
  const order = await insertPaidOrder(t, s.storeId, p.id, { amount: 15_000 });
  const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${order}/refund`, headers: post(s.key), payload: { amount: 1000, reason: `단순 변심${RLO}` } });
  assert.equal(refund.statusCode, 400, refund.body);
  assert.equal(refund.json().code, 'VALIDATION_FAILED');
  assert.equal(refund.json().details.fields[0].field, 'reason');

  const store = await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: bearer(s.ownerToken), payload: { name: `상점\u200F` } });
  assert.equal(store.statusCode, 400, store.body);
  assert.equal(store.json().details.fields[0].field, 'name');
});

test('the OpenAPI documents say it: format email and the no-bidi pattern', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const body = JSON.stringify(doc);
  assert.ok(body.includes('"format":"email"'), 'an e-mail field is documented as format email');
  assert.ok(body.includes('\\\\u202A-\\\\u202E'), 'the no-bidi pattern is documented');
});

test('portal sessions: a quoted local part is refused like any malformed e-mail (BAD_REQUEST on buyerEmail)', async () => {
  const res = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { buyerEmail: '"kim"@example.com' } });
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().details.field, 'buyerEmail');
});

test('business details, the payment page form and dashboard members use the same rules', async () => {
  const details = { companyName: '주식회사 테스트', representative: '김대표', businessNumber: '123-45-67891', mailOrderNumber: '2026-서울-0001', address: '서울시', supportPhone: null };
  const fieldsOf = (fn: () => unknown): Array<{ field: string; message: string }> => {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof ApiError);
      return (err.details as { fields: Array<{ field: string; message: string }> }).fields;
    }
    assert.fail('no error');
  };
  const quoted = fieldsOf(() => checkBusinessDetails({ ...details, supportEmail: '"help"@example.com' } as any));
  assert.ok(quoted.some((f) => f.field === 'supportEmail'), JSON.stringify(quoted));
  const bidi = fieldsOf(() => checkBusinessDetails({ ...details, representative: `김${RLO}대표`, supportEmail: 'help@example.com' } as any));
  assert.equal(bidi.find((f) => f.field === 'representative')?.message.includes('제어 문자'), true, JSON.stringify(bidi));

  const buyer = (o: Partial<FormValues>) =>
    validateBuyer({ buyerName: '김구매', buyerEmail: 'kim@example.com', buyerPhone: '010-1234-5678', method: 'card', cardNumber: '', couponCode: '', installment: '', agreeTerms: true, agreePrivacy: true, agreeThirdParty: true, agreeRecurring: false, ...o }, { needCardNumber: false, now: t.clock.now() });
  assert.ok(buyer({ buyerEmail: '"kim"@example.com' }).errors?.buyerEmail);
  assert.match(String(buyer({ buyerName: `김${RLO}구매` }).errors?.buyerName), /이름에는 글자 방향을 바꾸는 제어 문자/);
  assert.equal(buyer({}).errors?.buyerEmail, undefined);

  const actor = { kind: 'operator' as const, id: null, name: null };
  await assert.rejects(createMember(t.deps, { storeId: s.storeId, email: '"a b"@example.com', name: '직원', role: 'support' }, actor), (e: any) => e.details.fields[0].field === 'email');
  await assert.rejects(createMember(t.deps, { storeId: s.storeId, email: 'staff@example.com', name: `직원${RLO}`, role: 'support' }, actor), (e: any) => e.details.fields[0].field === 'name');
});
