import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, TEST_BUSINESS_DETAILS } from '../helpers/app';
import { cookieHeader, postForm, signIn } from './helpers';
import { enrolTotp, nextStep, totpCode } from './two-factor-helpers';
import { STEP_UP_ROUTES } from '../../src/dashboard/step-up-actions';
import { STEP_UP_WINDOW_MS } from '../../src/dashboard/sign-in/step-up';
import { insertPasskey } from '../../src/dashboard/sign-in/second-factor-repo';
import { pendingTotp } from '../../src/dashboard/sign-in/second-factor';
import { createProduct } from '../checkout/factory';
import { insertActiveRequest, insertPaidOrder } from '../refunds/factory';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';

const DAY = 86_400_000;

/**
 * Walks THE list of actions that move money or widen access (src/dashboard/step-up-actions.ts): for each entry, a
 * session whose second factor is stale is asked (the step-up page, or a 401 body for a script's request) and nothing
 * stored changes; then, with the factor given, the action is done. An entry without a case here fails the test, so a
 * route added to the list is walked too.
 */
test('step-up list: every listed action asks a stale session and changes nothing, then succeeds with the factor given', async () => {
  const t = await createTestApp();
  try {
    const owner = await signIn(t, { name: '김사장' });
    const storeId = owner.storeId;
    let { secret, recoveryCodes } = await enrolTotp(t, owner);
    let totpOn = true;
    let pendingSecret = '';
    // A passkey too (written as the WebAuthn ceremony would): the owner keeps a factor while the app is removed.
    await insertPasskey(t.db, { id: 'pk_walk', member_id: owner.memberId, store_id: storeId, credential_id: 'cred-walk', public_key: 'AA', sign_count: 0, transports: [], name: '노트북', device_type: 'singleDevice', backed_up: false, created_at: t.clock.now(), last_used_at: null });
    // Fresh right after enrolling: the refund threshold of the issue (1,000원).
    assert.equal((await postForm(t, owner, '/dashboard/settings/security', { policy: 'none', refundStepUpAmount: '1000' })).statusCode, 200);
    const other = await signIn(t, { role: 'support', store: owner.store, name: '이지원' });
    await enrolTotp(t, other);

    const product = await createProduct(t, owner.store, { name: '전자책', price: 50_000 });
    const order = await insertPaidOrder(t, storeId, product.id, { amount: 50_000 });
    const requested = await insertActiveRequest(t, storeId, await insertPaidOrder(t, storeId, product.id, { amount: 5_000 }), 5_000);
    const sub = await subscribe(t, owner.store, { productId: (await createSubscriptionProduct(t, owner.store)).id });
    await insertPaidOrder(t, storeId, product.id, { mode: 'live', amount: 10_000, paidAt: new Date(t.clock.now().getTime() - 60 * DAY) });

    const code = () => {
      if (!totpOn) return recoveryCodes.shift()!;
      nextStep(t);
      return totpCode(secret, t.clock.now().getTime());
    };
    // Every row of a table that the action writes, for the owner's store or the action's target.
    const rows = (table: string, column: string, value: string): Promise<unknown[]> => (t.db as any).selectFrom(table).selectAll().where(column, '=', value).execute();
    const audits = (action: string) => t.db.selectFrom('audit_log').select('id').where('store_id', '=', storeId).where('action', '=', action).execute();
    const liveKey = async () => (await t.db.selectFrom('api_keys').select('id').where('store_id', '=', storeId).where('mode', '=', 'live').where('revoked_at', 'is', null).orderBy('created_at', 'desc').executeTakeFirstOrThrow()).id;
    const liveEndpoint = async () => (await t.db.selectFrom('webhook_endpoints').select('id').where('store_id', '=', storeId).where('mode', '=', 'live').executeTakeFirstOrThrow()).id;
    const idem = async () => /name="idem" value="([^"]+)"/.exec((await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers })).body)?.[1] ?? '';
    const postJson = (url: string, body: Record<string, string>) =>
      t.app.inject({ method: 'POST', url, headers: { cookie: cookieHeader(owner.cookies), 'content-type': 'application/json', 'x-csrf-token': owner.csrf }, payload: JSON.stringify(body) });
    type Res = Awaited<ReturnType<typeof postForm>>;
    const ok = (status: number, text?: RegExp) => (res: Res) => {
      assert.equal(res.statusCode, status, res.body.slice(0, 300));
      if (text) assert.match(res.body, text);
    };

    interface Case {
      url: string;
      mode: 'test' | 'live';
      path: () => string | Promise<string>;
      form?: () => Record<string, string> | Promise<Record<string, string>>;
      json?: boolean;
      state: () => Promise<unknown>;
      done: (res: Res) => void;
      /** Why nothing stored changes when the action is done (it opens or reveals). */
      unchanged?: string;
    }
    const cases: Case[] = [
      { url: '/dashboard/orders/:id/refund', mode: 'test', path: () => `/dashboard/orders/${order}/refund`, form: async () => ({ amount: '', reason: '', idem: await idem() }), state: () => rows('order_refunds', 'order_id', order), done: ok(303) },
      { url: '/dashboard/refund-requests/:id/approve', mode: 'test', path: () => `/dashboard/refund-requests/${requested}/approve`, form: () => ({ amount: '', reason: '', confirmAmount: 'on' }), state: () => rows('refund_requests', 'id', requested), done: ok(303) },
      // Item 1 of the issue: an immediate cancel refunding 9,900 with the threshold at 1,000.
      { url: '/dashboard/subscriptions/:id/cancel', mode: 'test', path: () => `/dashboard/subscriptions/${sub.subscriptionId}/cancel`, form: () => ({ timing: 'immediate', reason: '' }), state: () => rows('subscriptions', 'id', sub.subscriptionId), done: (r) => assert.match(String(r.headers.location), /done=canceled/) },
      { url: '/dashboard/settings/settlements', mode: 'live', path: () => '/dashboard/settings/settlements', state: () => rows('settlement_rounds', 'store_id', storeId), done: ok(200, /정산 회차를 만들었습니다/) },
      { url: '/dashboard/settings/business-details', mode: 'test', path: () => '/dashboard/settings/business-details', form: () => ({ ...TEST_BUSINESS_DETAILS }), state: () => rows('store_business_details', 'store_id', storeId), done: ok(200) },
      { url: '/dashboard/settings/payments', mode: 'live', path: () => '/dashboard/settings/payments', form: () => ({ paymentProvider: 'toss', tossClientKey: 'live_ck_walkClientKey1' }), state: () => rows('store_mode_settings', 'store_id', storeId), done: ok(200) },
      { url: '/dashboard/settings/return-urls', mode: 'test', path: () => '/dashboard/settings/return-urls', form: () => ({ returnUrlDomains: 'shop.example.com' }), state: () => rows('store_mode_settings', 'store_id', storeId), done: ok(200) },
      { url: '/dashboard/developers/keys', mode: 'live', path: () => '/dashboard/developers/keys', form: () => ({ name: '서버', scopes: 'checkout:write' }), state: () => rows('api_keys', 'store_id', storeId), done: ok(200, /data-testid="secret"/) },
      { url: '/dashboard/developers/keys/:id/rotate', mode: 'live', path: async () => `/dashboard/developers/keys/${await liveKey()}/rotate`, form: () => ({ graceHours: '0' }), state: () => rows('api_keys', 'store_id', storeId), done: ok(200, /data-testid="secret"/) },
      { url: '/dashboard/developers/keys/:id/revoke', mode: 'live', path: async () => `/dashboard/developers/keys/${await liveKey()}/revoke`, state: () => rows('api_keys', 'store_id', storeId), done: ok(200) },
      { url: '/dashboard/developers/webhooks', mode: 'live', path: () => '/dashboard/developers/webhooks', form: () => ({ url: 'https://93.184.215.14/commerce', eventTypes: 'order.paid' }), state: () => rows('webhook_endpoints', 'store_id', storeId), done: ok(200, /whsec_/) },
      { url: '/dashboard/developers/webhooks/:id/status', mode: 'live', path: async () => `/dashboard/developers/webhooks/${await liveEndpoint()}/status`, form: () => ({ status: 'disabled' }), state: () => rows('webhook_endpoints', 'store_id', storeId), done: ok(200) },
      { url: '/dashboard/developers/webhooks/:id/secret', mode: 'live', path: async () => `/dashboard/developers/webhooks/${await liveEndpoint()}/secret`, state: () => audits('webhook_endpoint.secret_revealed'), done: ok(200, /whsec_/) },
      { url: '/dashboard/developers/webhooks/:id/rotate', mode: 'live', path: async () => `/dashboard/developers/webhooks/${await liveEndpoint()}/rotate`, state: () => rows('webhook_endpoints', 'store_id', storeId), done: ok(200, /whsec_/) },
      { url: '/dashboard/settings/members', mode: 'test', path: () => '/dashboard/settings/members', form: () => ({ name: '박지원', email: 'new-member@example.com', role: 'support' }), state: () => rows('store_members', 'store_id', storeId), done: ok(200) },
      { url: '/dashboard/settings/members/:id/role', mode: 'test', path: () => `/dashboard/settings/members/${other.memberId}/role`, form: () => ({ role: 'admin' }), state: () => rows('store_members', 'id', other.memberId), done: ok(200) },
      { url: '/dashboard/settings/members/:id/end-sessions', mode: 'test', path: () => `/dashboard/settings/members/${other.memberId}/end-sessions`, state: () => rows('dashboard_sessions', 'member_id', other.memberId), done: ok(200) },
      { url: '/dashboard/settings/members/:id/reset-2fa', mode: 'test', path: () => `/dashboard/settings/members/${other.memberId}/reset-2fa`, state: () => rows('member_totp', 'member_id', other.memberId), done: ok(200) },
      { url: '/dashboard/settings/members/:id/disable', mode: 'test', path: () => `/dashboard/settings/members/${other.memberId}/disable`, state: () => rows('store_members', 'id', other.memberId), done: ok(200) },
      { url: '/dashboard/settings/security', mode: 'test', path: () => '/dashboard/settings/security', form: () => ({ policy: 'none', refundStepUpAmount: '1500' }), state: () => rows('store_security', 'store_id', storeId), done: ok(200) },
      // The member's own factors: the app stays on until its own case removes it, then recovery codes confirm.
      { url: '/dashboard/account/unlock', mode: 'test', path: () => '/dashboard/account/unlock', state: async () => null, done: ok(303), unchanged: 'it only opens the security page for changes made by script' },
      { url: '/dashboard/account/passkeys/options', mode: 'test', json: true, path: () => '/dashboard/account/passkeys/options', state: () => rows('webauthn_challenges', 'purpose', 'register'), done: (r) => assert.ok(r.json().options?.challenge, r.body) },
      {
        url: '/dashboard/account/passkeys', mode: 'test', json: true, path: () => '/dashboard/account/passkeys', form: () => ({ challengeId: 'wch_none', name: '가짜' }), state: () => rows('member_passkeys', 'member_id', owner.memberId),
        done: ok(422), unchanged: 'a made-up registration is refused by the WebAuthn check itself (422): the request got past the step-up',
      },
      {
        url: '/dashboard/account/recovery-codes', mode: 'test', path: () => '/dashboard/account/recovery-codes', state: () => rows('member_recovery_codes', 'member_id', owner.memberId),
        done: (r) => {
          ok(200)(r);
          recoveryCodes = [...r.body.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((x) => x[1]);
          assert.equal(recoveryCodes.length, 10);
        },
      },
      { url: '/dashboard/account/totp/remove', mode: 'test', path: () => '/dashboard/account/totp/remove', state: () => rows('member_totp', 'member_id', owner.memberId), done: (r) => { ok(303)(r); totpOn = false; } },
      { url: '/dashboard/account/totp/start', mode: 'test', path: () => '/dashboard/account/totp/start', state: () => rows('member_totp', 'member_id', owner.memberId), done: ok(303) },
      {
        url: '/dashboard/account/totp/confirm', mode: 'test', path: () => '/dashboard/account/totp/confirm',
        form: async () => {
          pendingSecret = (await pendingTotp(t.deps, { id: owner.memberId, email: owner.email, storeName: '' }))!.secret;
          return { code: totpCode(pendingSecret, t.clock.now().getTime()) };
        },
        state: () => rows('member_totp', 'member_id', owner.memberId),
        done: (r) => {
          ok(200, /인증 앱을 켰습니다/)(r);
          [secret, totpOn] = [pendingSecret, true];
        },
      },
      { url: '/dashboard/account/passkeys/:id/remove', mode: 'test', path: () => '/dashboard/account/passkeys/pk_walk/remove', state: () => rows('member_passkeys', 'member_id', owner.memberId), done: ok(200, /패스키를 삭제했습니다/) },
    ];

    assert.deepEqual(cases.map((c) => c.url).sort(), STEP_UP_ROUTES.map((r) => r.url).sort(), 'one case per entry of the step-up list');
    for (const c of cases) {
      assert.equal((await postForm(t, owner, '/dashboard/mode', { mode: c.mode })).statusCode, 303);
      t.clock.advance(STEP_UP_WINDOW_MS + 1000);
      const path = await c.path();
      const form = c.form ? await c.form() : {};
      const before = await c.state();
      const asked = c.json ? await postJson(path, form) : await postForm(t, owner, path, form);
      assert.equal(asked.statusCode, 401, `${c.url}: a stale session is asked (got ${asked.statusCode}) ${asked.body.slice(0, 200)}`);
      if (c.json) assert.deepEqual(asked.json(), { error: '먼저 본인 확인을 해 주세요.' });
      else assert.match(asked.body, /data-testid="step-up"/, `${c.url}: the step-up page`);
      assert.deepEqual(await c.state(), before, `${c.url}: nothing changed while asked`);

      let done: Res;
      if (c.json) {
        assert.equal((await postForm(t, owner, '/dashboard/account/unlock', { _stepup_code: code() })).statusCode, 303, `${c.url}: confirmed first on the page`);
        done = await postJson(path, form);
      } else {
        done = await postForm(t, owner, path, { ...(c.form ? await c.form() : {}), _stepup_code: code() });
      }
      c.done(done);
      if (c.unchanged) assert.deepEqual(await c.state(), before, `${c.url}: ${c.unchanged}`);
      else assert.notDeepEqual(await c.state(), before, `${c.url}: done once the factor is given`);
    }
  } finally {
    await t.close();
  }
});

test('an immediate cancel refunding 9,900 asks a support member whose factor is 20 minutes old (threshold 1,000); cancelling at the period end does not', async () => {
  const t = await createTestApp();
  try {
    const owner = await signIn(t);
    await enrolTotp(t, owner);
    assert.equal((await postForm(t, owner, '/dashboard/settings/security', { policy: 'none', refundStepUpAmount: '1000' })).statusCode, 200);
    const support = await signIn(t, { role: 'support', store: owner.store, name: '이지원' });
    const { secret } = await enrolTotp(t, support);
    const productId = (await createSubscriptionProduct(t, owner.store)).id;
    const a = await subscribe(t, owner.store, { productId, buyerEmail: 'a@example.com' });
    const b = await subscribe(t, owner.store, { productId, buyerEmail: 'b@example.com' });
    t.clock.advance(20 * 60_000);
    const refunds = () => t.db.selectFrom('order_refunds').select('amount').where('order_id', '=', a.orderId).execute();

    const asked = await postForm(t, support, `/dashboard/subscriptions/${a.subscriptionId}/cancel`, { timing: 'immediate' });
    assert.equal(asked.statusCode, 401);
    assert.match(asked.body, /기준 금액을 넘는 환불/);
    assert.deepEqual(await refunds(), [], 'nothing refunded');
    assert.equal((await t.db.selectFrom('subscriptions').select('status').where('id', '=', a.subscriptionId).executeTakeFirstOrThrow()).status, 'active');

    nextStep(t);
    const done = await postForm(t, support, `/dashboard/subscriptions/${a.subscriptionId}/cancel`, { timing: 'immediate', _stepup_code: totpCode(secret, t.clock.now().getTime()) });
    assert.equal(done.statusCode, 303, done.body.slice(0, 300));
    assert.deepEqual((await refunds()).map((r) => Number(r.amount)), [9_900]);

    t.clock.advance(20 * 60_000);
    const scheduled = await postForm(t, support, `/dashboard/subscriptions/${b.subscriptionId}/cancel`, { timing: 'period_end' });
    assert.equal(scheduled.statusCode, 303, 'no refund, no step-up');
  } finally {
    await t.close();
  }
});
