import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, TEST_BUSINESS_DETAILS, type TestApp } from '../helpers/app';
import { createProduct, createSession, owner, payPath } from '../checkout/factory';
import { normalizeBusinessNumber, isSupportPhone } from '../../src/stores/business-details';
import { updateModeSettings } from '../../src/stores/service';
import { createDemo } from '../../src/demo';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';

let t: TestApp;
let toss: FakeToss;
before(async () => {
  toss = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
});
after(async () => {
  await t.close();
  await toss.close();
});

const put = (token: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: '/admin/v1/store/business-details', headers: { authorization: `Bearer ${token}` }, payload });

test('사업자등록번호: 10 digits with the National Tax Service check digit; written 123-45-67890', () => {
  assert.equal(normalizeBusinessNumber('1248100998'), '124-81-00998');
  assert.equal(normalizeBusinessNumber('124-81-00998'), '124-81-00998');
  assert.equal(normalizeBusinessNumber('124-81-00997'), null, 'wrong check digit');
  assert.equal(normalizeBusinessNumber('124-81-0099'), null, 'nine digits');
  assert.equal(normalizeBusinessNumber('12a-81-00998'), null);
  assert.ok(isSupportPhone('02-1234-5678') && isSupportPhone('1588-1234') && isSupportPhone('010 1234 5678') && isSupportPhone('+82 2-123-4567'));
  assert.ok(!isSupportPhone('1234') && !isSupportPhone('02-1234-5678 내선') && !isSupportPhone('9999-1234'));
});

test('the owner sets the business details through the console; GET reads them back and says live mode is ready', async () => {
  const s = await createTestStore(t, { businessDetails: false });
  const before = await t.app.inject({ url: '/admin/v1/store/business-details', headers: owner(s) });
  assert.equal(before.statusCode, 200);
  assert.deepEqual(before.json(), { businessDetails: null, liveReady: false });

  const res = await put(s.ownerToken, { ...TEST_BUSINESS_DETAILS, businessNumber: '1234567891', supportEmail: null });
  assert.equal(res.statusCode, 200, res.body);
  const got = (await t.app.inject({ url: '/admin/v1/store/business-details', headers: owner(s) })).json();
  assert.equal(got.liveReady, true);
  assert.equal(got.businessDetails.businessNumber, '123-45-67891', 'normalised');
  assert.equal(got.businessDetails.supportPhone, '02-1234-5678', 'kept as typed');
  assert.equal(got.businessDetails.supportEmail, null);
  assert.equal(got.businessDetails.sample, false);
  assert.equal(got.businessDetails.companyName, TEST_BUSINESS_DETAILS.companyName);
});

test('bad details answer 400 VALIDATION_FAILED naming every bad field in Korean, and keep what was stored', async () => {
  const s = await createTestStore(t);
  const res = await put(s.ownerToken, { ...TEST_BUSINESS_DETAILS, businessNumber: '123-45-67890', supportPhone: '12-34', supportEmail: 'not-mail', companyName: '  ' });
  assert.equal(res.statusCode, 400);
  const body = res.json();
  assert.equal(body.code, 'VALIDATION_FAILED');
  const fields = Object.fromEntries(body.details.fields.map((f: any) => [f.field, f.message]));
  assert.deepEqual(Object.keys(fields).sort(), ['businessNumber', 'companyName', 'supportEmail', 'supportPhone']);
  assert.match(fields.businessNumber, /사업자등록번호가 올바르지 않습니다/);
  assert.match(fields.supportPhone, /전화번호 형식/);
  const none = await put(s.ownerToken, { ...TEST_BUSINESS_DETAILS, supportPhone: null, supportEmail: null });
  assert.equal(none.statusCode, 400);
  assert.match(none.json().details.fields[0].message, /전화번호나 이메일 중 하나/);
  const unknown = await put(s.ownerToken, { ...TEST_BUSINESS_DETAILS, ceo: 'x' });
  assert.equal(unknown.statusCode, 400);
  const kept = (await t.app.inject({ url: '/admin/v1/store/business-details', headers: owner(s) })).json();
  assert.equal(kept.businessDetails.businessNumber, TEST_BUSINESS_DETAILS.businessNumber, 'nothing stored was lost');
  const noAuth = await t.app.inject({ method: 'PUT', url: '/admin/v1/store/business-details', payload: TEST_BUSINESS_DETAILS });
  assert.equal(noAuth.statusCode, 401);
});

test('live checkout needs the business details: CHECKOUT_NOT_CONFIGURED (business_details_missing) until they are set; test mode does not', async () => {
  const s = await createTestStore(t, { businessDetails: false });
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: toss.secretKey });
  const liveKey = (await s.newKey({ mode: 'live' })).key;
  const liveProduct = await createProduct(t, s, { mode: 'live' });
  const testProduct = await createProduct(t, s);

  const refused = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(liveKey), payload: { productId: liveProduct.id } });
  assert.equal(refused.statusCode, 500);
  assert.equal(refused.json().code, 'CHECKOUT_NOT_CONFIGURED');
  assert.equal(refused.json().details.reason, 'business_details_missing');
  assert.match(refused.json().message, /사업자 정보/);

  const testSession = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: testProduct.id } });
  assert.equal(testSession.statusCode, 200, 'test mode works without them');
  const page = await t.app.inject({ url: payPath(testSession.json()) });
  assert.match(page.body, /판매자 사업자 정보가 아직 등록되지 않았습니다/);

  assert.equal((await put(s.ownerToken, TEST_BUSINESS_DETAILS)).statusCode, 200);
  const ok = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(liveKey), payload: { productId: liveProduct.id } });
  assert.equal(ok.statusCode, 200, `allowed at once (the cached setup was emptied): ${ok.body}`);
});

test('every hosted page of a store shows the seller in its footer: payment page, status page, receipt', async () => {
  const s = await createTestStore(t);
  const p = await createProduct(t, s);
  const session = await createSession(t, s.key, { productId: p.id });
  const footer = (body: string) => /<footer class="biz"[\s\S]*?<\/footer>/.exec(body)?.[0] ?? '';
  // The seller's own names are marked translate="no" (src/pages/footer.ts): the text is read without that markup.
  const unmarked = (f: string) => f.replace(/<span translate="no">([^<]*)<\/span>/g, '$1');
  const form = unmarked(footer((await t.app.inject({ url: payPath(session) })).body));
  for (const part of ['주식회사 테스트상점', '대표자 김대표', '사업자등록번호 123-45-67891', '통신판매업 신고번호 제2026-서울강남-00001호', '서울특별시 강남구 테헤란로 1', 'href="tel:0212345678"', 'href="mailto:help@example.com"']) {
    assert.ok(form.includes(part), `${part} in ${form}`);
  }
  t.clock.advance(31 * 60_000);
  try {
    const expired = await t.app.inject({ url: payPath(session) });
    assert.equal(expired.statusCode, 410);
    assert.ok(footer(expired.body).includes('사업자등록번호 123-45-67891'), 'status pages too');
  } finally {
    t.clock.advance(-31 * 60_000);
  }
});

test('the demo store gets plausible sample details, marked as samples on the pages', async () => {
  const demo = await createDemo(t.deps);
  const got = (await t.app.inject({ url: '/admin/v1/store/business-details', headers: { authorization: `Bearer ${demo.ownerToken}` } })).json();
  assert.equal(got.businessDetails.sample, true);
  assert.ok(normalizeBusinessNumber(got.businessDetails.businessNumber));
  const products = (await t.app.inject({ url: '/v1/products', headers: { authorization: `Bearer ${demo.testApiKey}` } })).json().data;
  // Demo products are made in one instant, so their order is not fixed: take a one-time one.
  const oneTime = products.find((p: { type: string }) => p.type === 'one_time');
  const session = await createSession(t, demo.testApiKey, { productId: oneTime.id });
  const page = await t.app.inject({ url: payPath(session) });
  assert.match(page.body, /데모 상점의 샘플 정보입니다/);
});

test('the portal views render the seller footer once they are given the details', async () => {
  const { portalDone } = await import('../../src/pages/portal/views');
  const { getBusinessDetails } = await import('../../src/stores/service');
  const s = await createTestStore(t);
  const base = { storeName: '테스트 상점', mode: 'live' as const, title: '완료', message: '완료', portalPath: '/portal/x', returnUrl: null };
  const withDetails = portalDone({ ...base, business: await getBusinessDetails(t.db, s.storeId) });
  assert.match(withDetails, /<footer class="biz"[\s\S]*사업자등록번호 123-45-67891/);
  assert.ok(!portalDone(base).includes('<footer'), 'nothing until portal.ts passes them');
});
