import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, TEST_BUSINESS_DETAILS } from '../helpers/app';
import { postForm, signIn } from './helpers';
import { startFakeToss } from '../payments/fake-toss';
import { setPublicContactVerified, updateModeSettings } from '../../src/stores/service';

/**
 * A live store that cannot take payments yet shows empty figures: Home and 대사 say why and what is left (the items
 * of the go-live checklist that stop a live payment), instead of zeros with no reason; once they are done the notice
 * goes, and test mode never shows it.
 */
test('live Home and 대사 say that live payments are not ready and what is left; the notice goes once they can be taken', async (tc) => {
  const toss = await startFakeToss({ kind: 'live' });
  const t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
  tc.after(async () => {
    await t.close();
    await toss.close();
  });
  const store = await createTestStore(t, { verified: false, businessDetails: false });
  const owner = await signIn(t, { store });
  await updateModeSettings(t.deps, store.storeId, 'live', { returnUrlDomains: [] });
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers: owner.headers });
    assert.equal(res.statusCode, 200);
    return res.body;
  };

  // Test mode: no notice (test payments need none of it).
  assert.doesNotMatch(await get('/dashboard'), /data-testid="live-not-ready"/);

  assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: 'live' })).statusCode, 303);
  for (const url of ['/dashboard', '/dashboard/reconciliation']) {
    const body = await get(url);
    assert.match(body, /data-testid="live-not-ready"/, `${url} tells why live figures are empty`);
    assert.match(body, /남은 준비: 사업자 정보, 공개 연락처 인증, 토스페이먼츠 라이브 키 확인, 돌아갈 주소\(return URL\) 도메인\./);
    assert.match(body, /href="\/dashboard\/settings"/);
  }

  // Some steps done: only the rest is named.
  assert.equal((await t.app.inject({ method: 'PUT', url: '/admin/v1/store/business-details', headers: bearer(store.ownerToken), payload: TEST_BUSINESS_DETAILS })).statusCode, 200);
  await setPublicContactVerified(t.deps, store.storeId, true);
  assert.match(await get('/dashboard'), /남은 준비: 토스페이먼츠 라이브 키 확인, 돌아갈 주소\(return URL\) 도메인\./);

  // Every prerequisite of a live payment done: the notice goes (the webhook and first payment are not prerequisites).
  await updateModeSettings(t.deps, store.storeId, 'live', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: toss.secretKey, returnUrlDomains: ['shop.example.com'] });
  for (const url of ['/dashboard', '/dashboard/reconciliation']) assert.doesNotMatch(await get(url), /data-testid="live-not-ready"/, url);

  // English.
  await updateModeSettings(t.deps, store.storeId, 'live', { returnUrlDomains: [] });
  const en = await t.app.inject({ url: '/dashboard', headers: { cookie: `${owner.headers.cookie}; lang=en` } });
  assert.match(en.body, /Live mode cannot take real payments yet, so the figures below are empty\. Still to do: Return-URL domains\./);
});
