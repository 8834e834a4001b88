import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, TEST_BUSINESS_DETAILS } from '../helpers/app';
import { postForm, signIn } from './helpers';
import { startFakeToss } from '../payments/fake-toss';
import { insertPaidOrder, product, refund } from '../refunds/factory';
import { TossProvider } from '../../src/payments/toss';
import { setPublicContactVerified, updateModeSettings } from '../../src/stores/service';
import { markTossWebhookSeen } from '../../src/stores/toss-state-repo';

/** Each checklist item's state as the settings page shows it: `item → done`. */
function checklistOf(body: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const m of body.matchAll(/data-testid="go-live-([a-zA-Z]+)" data-done="(true|false)"/g)) out[m[1]] = m[2] === 'true';
  return out;
}

test('Settings shows the go-live checklist: each item missing (with what to do) until its fact holds, then done', async (tc) => {
  const toss = await startFakeToss({ kind: 'live' });
  const t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
  tc.after(async () => {
    await t.close();
    await toss.close();
  });
  const store = await createTestStore(t, { verified: false, businessDetails: false });
  const owner = await signIn(t, { store });
  await updateModeSettings(t.deps, store.storeId, 'live', { returnUrlDomains: [] }); // the test store comes with some
  const page = async () => {
    const res = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.equal(res.statusCode, 200);
    return res.body;
  };

  const empty = await page();
  assert.deepEqual(checklistOf(empty), {
    businessDetails: false,
    verifiedContact: false,
    tossKeys: false,
    returnUrlDomains: false,
    tossWebhook: false,
    firstLivePayment: false,
    firstLiveRefund: false,
  });
  assert.match(empty, /라이브 전환 체크리스트/);
  assert.match(empty, /0\/7 완료/);
  assert.match(empty, /토스페이먼츠 개발자센터에 라이브 모드의 웹훅 주소를 등록하세요/);

  // The seller does the steps; each shows as done once it is.
  const put = await t.app.inject({ method: 'PUT', url: '/admin/v1/store/business-details', headers: bearer(store.ownerToken), payload: TEST_BUSINESS_DETAILS });
  assert.equal(put.statusCode, 200, put.body);
  await setPublicContactVerified(t.deps, store.storeId, true);
  await updateModeSettings(t.deps, store.storeId, 'live', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: toss.secretKey });
  let now = checklistOf(await page());
  assert.deepEqual([now.businessDetails, now.verifiedContact, now.tossKeys, now.returnUrlDomains], [true, true, true, false]);

  await updateModeSettings(t.deps, store.storeId, 'live', { returnUrlDomains: ['shop.example.com'] });
  await markTossWebhookSeen(t.db, store.storeId, 'live', t.clock.now());
  now = checklistOf(await page());
  assert.deepEqual([now.returnUrlDomains, now.tossWebhook, now.firstLivePayment], [true, true, false]);

  // A first live payment (approved at Toss) and a first live refund (cancelled at Toss through the API).
  const p = await product(t, store, { mode: 'live' });
  const paymentKey = 'tgen_golive_1';
  const orderId = await insertPaidOrder(t, store.storeId, p.id, { mode: 'live', amount: 10_000, provider: 'toss', paymentKey });
  const confirmed = await new TossProvider({ secretKey: toss.secretKey, baseUrl: toss.baseUrl }).confirmPayment({ paymentKey, orderId, amount: 10_000, idempotencyKey: 'golive-1' });
  assert.equal(confirmed.status, 'succeeded');
  now = checklistOf(await page());
  assert.deepEqual([now.firstLivePayment, now.firstLiveRefund], [true, false]);
  const liveKey = (await store.newKey({ mode: 'live' })).key;
  const refunded = await refund(t, liveKey, orderId, { amount: 1_000, reason: '라이브 환불 확인' });
  assert.equal(refunded.statusCode, 200, refunded.body);

  const full = await page();
  assert.ok(Object.values(checklistOf(full)).every(Boolean), JSON.stringify(checklistOf(full)));
  assert.match(full, /7\/7 완료/);
  assert.doesNotMatch(full, /토스페이먼츠 개발자센터에 라이브 모드의 웹훅 주소를 등록하세요/, 'a done item shows no instructions');

  // English
  const en = await t.app.inject({ url: '/dashboard/settings', headers: { cookie: `${owner.headers.cookie}; lang=en` } });
  assert.match(en.body, /Go-live checklist/);
});

test('Settings → payments: a secret key Toss refuses is not saved and the page says why, in Korean', async (tc) => {
  const toss = await startFakeToss({ kind: 'test' });
  const t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
  tc.after(async () => {
    await t.close();
    await toss.close();
  });
  const owner = await signIn(t);
  const refused = await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: 'test_sk_notthemerchants0000' });
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /토스페이먼츠가 이 시크릿 키를 거부했습니다 \(UNAUTHORIZED_KEY\)/);
  assert.ok(!refused.body.includes('test_sk_notthemerchants0000'), 'the refused key is not echoed into the page');
  assert.match(refused.body, /시크릿 키가 없습니다/);
  const ok = await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: toss.secretKey });
  assert.equal(ok.statusCode, 200);
  assert.match(ok.body, /시크릿 키가 설정되어 있습니다/);
});
