import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { cookieHeader, postForm, signIn } from './helpers';
import { enrolTotp, nextStep, totpCode } from './two-factor-helpers';
import { loadConfig } from '../../src/config';

test('DASHBOARD_STEP_UP_MINUTES: default 10, 0 allowed, a day at most, anything else refused at start', () => {
  const env = { DATA_DIR: 'memory://', MASTER_KEY: 'a'.repeat(64) };
  assert.equal(loadConfig(env).dashboardStepUpMinutes, 10);
  assert.equal(loadConfig({ ...env, DASHBOARD_STEP_UP_MINUTES: '0' }).dashboardStepUpMinutes, 0);
  assert.equal(loadConfig({ ...env, DASHBOARD_STEP_UP_MINUTES: '1440' }).dashboardStepUpMinutes, 1440);
  assert.throws(() => loadConfig({ ...env, DASHBOARD_STEP_UP_MINUTES: '1441' }), /DASHBOARD_STEP_UP_MINUTES must be at most 1440/);
  assert.throws(() => loadConfig({ ...env, DASHBOARD_STEP_UP_MINUTES: '-1' }), /DASHBOARD_STEP_UP_MINUTES must be an integer >= 0/);
  assert.throws(() => loadConfig({ ...env, DASHBOARD_STEP_UP_MINUTES: 'ten' }), /DASHBOARD_STEP_UP_MINUTES/);
});

test('the window is the setting: 30 minutes covers an action 20 minutes after the factor, and the prompt says 30', async () => {
  const t = await createTestApp({ config: { dashboardStepUpMinutes: 30 } });
  try {
    const owner = await signIn(t);
    await enrolTotp(t, owner);
    t.clock.advance(20 * 60_000);
    assert.equal((await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'a.example.com' })).statusCode, 200, 'inside 30 minutes');
    t.clock.advance(11 * 60_000);
    const asked = await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'b.example.com' });
    assert.equal(asked.statusCode, 401, 'past 30 minutes');
    assert.match(asked.body, /확인 후 30분 동안은 다시 묻지 않습니다/);
    const security = await t.app.inject({ url: '/dashboard/settings/security', headers: owner.headers });
    assert.match(security.body, /최근 30분 안에 인증하지 않았다면/);
  } finally {
    await t.close();
  }
});

test('0 asks every time: each action right after another one\'s step-up asks again; adding a passkey (several requests) still works after one confirmation', async () => {
  const t = await createTestApp({ config: { dashboardStepUpMinutes: 0 } });
  try {
    const owner = await signIn(t);
    const { secret } = await enrolTotp(t, owner);
    const code = () => {
      nextStep(t);
      return totpCode(secret, t.clock.now().getTime());
    };
    const first = await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'a.example.com' });
    assert.equal(first.statusCode, 401, 'asked even right after the sign-in factor');
    assert.match(first.body, /이런 작업마다 매번 확인합니다/);
    assert.equal((await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'a.example.com', _stepup_code: code() })).statusCode, 200);
    const again = await postForm(t, owner, '/dashboard/settings/return-urls', { returnUrlDomains: 'b.example.com' });
    assert.equal(again.statusCode, 401, 'the same action at the same instant asks again');
    const page = await t.app.inject({ url: '/dashboard/settings', headers: owner.headers });
    assert.doesNotMatch(page.body, /b\.example\.com/);

    // The passkey ceremony: confirm on the page, then the script's requests within the minute go through.
    assert.equal((await postForm(t, owner, '/dashboard/account/unlock', { _stepup_code: code() })).statusCode, 303);
    t.clock.advance(30_000);
    const json = { cookie: cookieHeader(owner.cookies), 'content-type': 'application/json', 'x-csrf-token': owner.csrf };
    const options = await t.app.inject({ method: 'POST', url: '/dashboard/account/passkeys/options', headers: json, payload: '{}' });
    assert.equal(options.statusCode, 200, options.body);
    t.clock.advance(31_000);
    const late = await t.app.inject({ method: 'POST', url: '/dashboard/account/passkeys/options', headers: json, payload: '{}' });
    assert.equal(late.statusCode, 401, 'past the ceremony\'s minute');
  } finally {
    await t.close();
  }
});
