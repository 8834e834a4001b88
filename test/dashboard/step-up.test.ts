import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, TEST_BUSINESS_DETAILS } from '../helpers/app';
import { postForm, signIn, type DashboardSession } from './helpers';
import { auditOf, enrolTotp, nextStep, totpCode } from './two-factor-helpers';
import { STEP_UP_WINDOW_MS } from '../../src/dashboard/sign-in/step-up';
import { createProduct } from '../checkout/factory';
import { insertPaidOrder } from '../refunds/factory';
import { runMailOnce } from '../../src/mail/dispatch';

const idemOf = (body: string) => /name="idem" value="([^"]+)"/.exec(body)?.[1] ?? '';

test('step-up: each money-moving action asks for the second factor again unless given within the window', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const { secret } = await enrolTotp(t, owner);
  const product = await createProduct(t, owner.store, { name: '전자책', price: 50_000 });
  const code = () => {
    nextStep(t);
    return totpCode(secret, t.clock.now().getTime());
  };
  const stale = () => t.clock.advance(STEP_UP_WINDOW_MS + 1000);
  const setMode = async (mode: 'test' | 'live') => assert.equal((await postForm(t, owner, '/dashboard/mode', { mode })).statusCode, 303);

  /**
   * One action: asked (401, the step-up page carrying the form's fields, nothing changed), then done with a code from
   * the app in the form, then done again at once without being asked (the window is open).
   */
  async function guarded(name: string, url: string | (() => Promise<string>), form: () => Promise<Record<string, string>> | Record<string, string>, done: (res: Awaited<ReturnType<typeof postForm>>) => void, o: { mode?: 'test' | 'live'; again?: boolean } = {}) {
    await setMode(o.mode ?? 'test');
    stale();
    const target = typeof url === 'string' ? url : await url();
    const fields = await form();
    const asked = await postForm(t, owner, target, fields);
    assert.equal(asked.statusCode, 401, `${name}: asked (got ${asked.statusCode})`);
    assert.match(asked.body, /data-testid="step-up"/, `${name}: the step-up page`);
    for (const [k, v] of Object.entries(fields)) assert.ok(asked.body.includes(`name="${k}" value="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`), `${name}: carries ${k}`);
    const ok = await postForm(t, owner, target, { ...(await form()), _stepup_code: code() });
    done(ok);
    if (o.again !== false) {
      const again = await postForm(t, owner, target, await form());
      assert.notEqual(again.statusCode, 401, `${name}: not asked again within the window`);
      assert.doesNotMatch(again.body, /data-testid="step-up"/);
    }
  }
  const saved = (name: string) => (res: { statusCode: number; body: string }) => {
    assert.equal(res.statusCode, 200, `${name}: done after the code (${res.statusCode}) ${res.body.slice(0, 200)}`);
    assert.match(res.body, /저장했습니다|만들었습니다|바꿨습니다|추가|비밀/);
  };

  await tc.test('a wrong code is refused and the action is not done', async () => {
    stale();
    const res = await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'wrong.example.com', _stepup_code: '000000' });
    assert.equal(res.statusCode, 401);
    assert.match(res.body, /코드가 올바르지 않거나 이미 사용되었습니다/);
    const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.doesNotMatch(page.body, /wrong\.example\.com/);
  });

  await tc.test('business details, return-URL domains, the store security policy', async () => {
    await guarded('business details', '/dashboard/settings/business-details', () => ({ ...TEST_BUSINESS_DETAILS, address: '서울특별시 중구 세종대로 1' }), saved('business details'));
    await guarded('return URLs', '/dashboard/settings/return-urls', () => ({ returnUrlDomains: 'shop.example.com' }), saved('return URLs'));
    await guarded('store security', '/dashboard/settings/security', () => ({ policy: 'none', refundStepUpAmount: '10000' }), saved('store security'));
  });

  await tc.test('Toss keys in live mode (test mode does not ask)', async () => {
    await guarded('live Toss keys', '/dashboard/settings/payments', () => ({ paymentProvider: 'toss', tossClientKey: 'live_ck_stepUpClientKey1' }), saved('live toss'), { mode: 'live' });
    // The 자동결제 MID's pair (issue 32) is the same form and the same step-up.
    stale();
    await guarded(
      'live 자동결제 keys',
      '/dashboard/settings/payments',
      () => ({ paymentProvider: 'toss', tossClientKey: 'live_ck_stepUpClientKey1', tossBillingClientKey: 'live_ck_stepUpBillingKey1' }),
      saved('live billing'),
      { mode: 'live' },
    );
    await setMode('test');
    stale();
    const testMode = await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: '' });
    assert.equal(testMode.statusCode, 200, 'test-mode payment settings do not ask');
    assert.equal((await postForm(t, owner, '/dashboard/settings/payments', { paymentProvider: 'simulator' })).statusCode, 200);
  });

  await tc.test('live API keys: creating and rotating; live webhook endpoints: adding and revealing the secret', async () => {
    await guarded('live API key', '/dashboard/developers/keys', () => ({ name: '서버', scopes: 'checkout:write' }), (res) => {
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /data-testid="secret"/);
    }, { mode: 'live', again: false });
    const keyId = async () => /data-key="([^"]+)"/.exec((await t.app.inject({ url: '/dashboard/developers', headers: owner.headers })).body)![1];
    await guarded('rotate live API key', async () => `/dashboard/developers/keys/${await keyId()}/rotate`, () => ({ graceHours: '0' }), (res) => assert.match(res.body, /data-testid="secret"/), { mode: 'live', again: false });
    await guarded('live webhook endpoint', '/dashboard/developers/webhooks', () => ({ url: 'https://93.184.215.14/commerce', eventTypes: 'order.paid' }), (res) => {
      assert.equal(res.statusCode, 200, /role="alert">([^<]*)/.exec(res.body)?.[1]);
      assert.match(res.body, /whsec_/);
    }, { mode: 'live', again: false });
    const epId = async () => /data-endpoint="([^"]+)"/.exec((await t.app.inject({ url: '/dashboard/developers/webhooks', headers: owner.headers })).body)![1];
    await guarded('reveal live webhook secret', async () => `/dashboard/developers/webhooks/${await epId()}/secret`, () => ({}), (res) => assert.match(res.body, /whsec_/), { mode: 'live' });
    // Test mode never asks.
    await setMode('test');
    stale();
    assert.equal((await postForm(t, owner, '/dashboard/developers/keys', { name: '테스트', scopes: 'checkout:write' })).statusCode, 200);
  });

  await tc.test('adding members and changing roles', async () => {
    await guarded('add member', '/dashboard/settings/members', () => ({ name: '박지원', email: `support-${Date.now()}@example.com`, role: 'support' }), (res) => assert.equal(res.statusCode, 200), { again: false });
    const page = await t.app.inject({ url: '/dashboard/settings/members', headers: owner.headers });
    const other = [...page.body.matchAll(/data-member="([^"]+)"/g)].map((x) => x[1]).find((id) => id !== owner.memberId)!;
    await guarded('change role', `/dashboard/settings/members/${other}/role`, () => ({ role: 'admin' }), saved('role'));
  });

  await tc.test('refunds above the owner-set threshold ask (the whole remainder counts when the amount is blank); smaller ones do not', async () => {
    await setMode('test');
    const order = await insertPaidOrder(t, owner.storeId, product.id, { amount: 50_000 });
    const form = async (amount: string) => ({ amount, reason: '', idem: idemOf((await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers })).body) });
    stale();
    const small = await postForm(t, owner, `/dashboard/orders/${order}/refund`, await form('5,000'));
    assert.equal(small.statusCode, 303, 'a refund under the threshold (10,000) does not ask');
    await guarded('refund above threshold', `/dashboard/orders/${order}/refund`, () => form(''), (res) => {
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers.location), /done=refunded/);
    }, { again: false });
    const audit = await auditOf(t, owner.storeId);
    assert.ok(audit.some((a) => a.action === 'session.step_up_verified' && a.details.for === 'refund'));
  });

  await tc.test('a member without a second factor is not asked (the store policy is what requires one)', async () => {
    const admin = await signIn(t, { role: 'admin', store: owner.store });
    stale();
    const res = await postForm(t, admin, '/dashboard/settings/return-urls', { returnUrlDomains: 'shop.example.com' });
    assert.equal(res.statusCode, 200);
  });

  await tc.test('a change of payout-relevant settings is mailed to every owner (live mail for business details; test keys land in the test mailbox)', async () => {
    const mails = await t.db.selectFrom('mail_outbox').selectAll().where('store_id', '=', owner.storeId).where('kind', '=', 'seller_security_notice').orderBy('created_at').execute();
    const byChange = (c: string) => mails.filter((m) => (m.data as Record<string, unknown>).change === c);
    assert.ok(byChange('business_details').length >= 1);
    assert.ok(byChange('business_details').every((m) => m.mode === 'live' && m.recipient === owner.email));
    assert.deepEqual((byChange('business_details')[0].data as { fields: string[] }).fields, ['address']);
    const keys = byChange('toss_keys');
    assert.ok(keys.some((m) => m.mode === 'live'), 'the live key change');
    assert.ok(keys.some((m) => m.mode === 'test'), 'the test-mode provider change');
    assert.ok(!JSON.stringify(mails.map((m) => m.data)).includes('live_ck_stepUpClientKey1'), 'no key in the mail');
    await runMailOnce(t.deps, t.clock.now());
    const testMail = await t.db.selectFrom('mail_outbox').selectAll().where('id', '=', keys.find((m) => m.mode === 'test')!.id).executeTakeFirstOrThrow();
    assert.equal(testMail.status, 'captured');
    assert.match(testMail.subject ?? '', /결제 설정\(결제대행사·토스페이먼츠·포트원 키\).*변경되었습니다/);
    assert.match(testMail.text_body ?? '', /김사장/);
    const liveMail = await t.db.selectFrom('mail_outbox').selectAll().where('id', '=', byChange('business_details')[0].id).executeTakeFirstOrThrow();
    assert.equal(liveMail.status, 'unconfigured', 'live mail waits for SMTP_URL (sent once it is set)');
  });
});

export type { DashboardSession };
