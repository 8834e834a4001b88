import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore } from '../helpers/app';
import { postForm, signIn } from './helpers';

const VALID = {
  companyName: '주식회사 윤상점',
  representative: '윤사장',
  businessNumber: '2208162517',
  mailOrderNumber: '2026-서울강남-01234',
  address: '서울특별시 강남구 테헤란로 1',
  supportPhone: '02-1234-5678',
  supportEmail: 'help@example.com',
};

test('Settings: business details are shown and saved from the dashboard (store-wide), refused in Korean, audited', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  // A store without business details (createTestStore sets them by default), as a new seller has.
  const owner = await signIn(t, { name: '윤사장', store: await createTestStore(t, { businessDetails: false }) });
  const s = owner.store;
  const stored = async () => (await t.app.inject({ url: '/admin/v1/store/business-details', headers: bearer(s.ownerToken) })).json();
  const audit = async () => (await t.app.inject({ url: '/admin/v1/audit-log?action=settings.business_details_updated', headers: bearer(s.ownerToken) })).json().data;

  await tc.test('before any details are set, the page says live payments need them', async () => {
    const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /data-testid="business-details"/);
    assert.match(page.body, /사업자 정보를 저장해야 라이브 결제를 받을 수 있습니다/);
    assert.equal((await stored()).businessDetails, null);
  });

  await tc.test('an invalid 사업자등록번호 is refused with the Korean message, the typed values are kept, nothing is stored', async () => {
    const res = await postForm(t, owner, '/dashboard/settings/business-details', { ...VALID, businessNumber: '123-45-67890' });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /사업자등록번호가 올바르지 않습니다/);
    assert.match(res.body, /name="businessNumber" value="123-45-67890"/);
    assert.match(res.body, /name="companyName" value="주식회사 윤상점"/);
    assert.match(res.body, /name="address" value="서울특별시 강남구 테헤란로 1"/);
    assert.match(res.body, /name="businessNumber"[^>]*aria-invalid="true"/);
    const after = await stored();
    assert.equal(after.businessDetails, null);
    assert.equal(after.liveReady, false);
    assert.deepEqual(await audit(), []);
  });

  await tc.test('the owner saves valid details: the console API returns them, the page shows them and live readiness', async () => {
    const res = await postForm(t, owner, '/dashboard/settings/business-details', VALID);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /저장했습니다/);
    assert.match(res.body, /라이브 결제 준비됨/);
    const got = await stored();
    assert.equal(got.liveReady, true);
    assert.equal(got.businessDetails.companyName, VALID.companyName);
    assert.equal(got.businessDetails.representative, VALID.representative);
    assert.equal(got.businessDetails.businessNumber, '220-81-62517');
    assert.equal(got.businessDetails.mailOrderNumber, VALID.mailOrderNumber);
    assert.equal(got.businessDetails.address, VALID.address);
    assert.equal(got.businessDetails.supportPhone, VALID.supportPhone);
    assert.equal(got.businessDetails.supportEmail, VALID.supportEmail);
    const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.match(page.body, /name="businessNumber" value="220-81-62517"/);
    assert.match(page.body, /name="supportEmail" value="help@example.com"/);
  });

  await tc.test('the audit log has the entry with the member\'s name, store-wide, naming the changed fields', async () => {
    const [entry] = await audit();
    assert.ok(entry, 'an audit entry was written');
    assert.equal(entry.actor.name, '윤사장');
    assert.equal(entry.actor.kind, 'member');
    assert.equal(entry.mode, null);
    assert.equal(entry.target.id, s.storeId);
    assert.equal(entry.details.businessNumber, '220-81-62517');
    assert.deepEqual(entry.details.changed, ['companyName', 'representative', 'businessNumber', 'mailOrderNumber', 'address', 'supportPhone', 'supportEmail']);
  });

  await tc.test('a later refused save (no phone and no e-mail) keeps the stored details', async () => {
    const res = await postForm(t, owner, '/dashboard/settings/business-details', { ...VALID, companyName: '바뀐 상호', supportPhone: '', supportEmail: '' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /고객센터 전화번호나 이메일 중 하나는 입력해 주세요/);
    assert.match(res.body, /name="companyName" value="바뀐 상호"/);
    assert.equal((await stored()).businessDetails.companyName, VALID.companyName);
  });

  await tc.test('a support member gets 403 on the page and on the save; nothing changes', async () => {
    const support = await signIn(t, { role: 'support', store: s, name: '상담원' });
    const page = await t.app.inject({ url: '/dashboard/settings', headers: support.headers });
    assert.equal(page.statusCode, 403);
    const res = await postForm(t, support, '/dashboard/settings/business-details', { ...VALID, companyName: '권한 없음' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /접근 권한이 없습니다/);
    assert.equal((await stored()).businessDetails.companyName, VALID.companyName);
  });

  await tc.test('a POST without the CSRF token is refused and nothing changes', async () => {
    const res = await postForm(t, owner, '/dashboard/settings/business-details', { ...VALID, companyName: '위조 요청' }, { csrf: false });
    assert.equal(res.statusCode, 403);
    assert.equal((await stored()).businessDetails.companyName, VALID.companyName);
    assert.equal((await audit()).length, 1);
  });

  await tc.test('an admin (settings permission) in an English session sees English labels and the stored values', async () => {
    const admin = await signIn(t, { role: 'admin', store: s, name: 'Admin' });
    const page = await t.app.inject({ url: '/dashboard/settings', headers: { cookie: `${admin.headers.cookie}; lang=en` } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Business registration number/);
    assert.match(page.body, /Ready for live payments/);
    assert.match(page.body, /name="companyName" value="주식회사 윤상점"/);
  });
});
