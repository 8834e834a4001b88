import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createTestApp, createTestStore } from '../../helpers/app';
import { createMember } from '../../../src/dashboard/members';
import { totpCode } from '../../../src/dashboard/sign-in/second-factor';
import { STEP_UP_WINDOW_MS } from '../../../src/dashboard/sign-in/step-up';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/dash-security';
const OPERATOR = { kind: 'operator' as const, id: null, name: null };

/** A phone (390x844) and a desktop (1280x800) look of the current page: axe (no serious/critical), no sideways scroll, screenshots. */
async function checkPage(page: Page, name: string): Promise<void> {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  for (const [w, h] of [
    [390, 844],
    [1280, 800],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(fits, `${name} fits ${w} px without horizontal scroll`);
    const result = await new AxeBuilder({ page: page as any }).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${name} at ${w}px: axe serious/critical violations`);
    await page.screenshot({ path: `${SHOTS}/${name}-${w}x${h}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

test('passkeys in Chromium through its virtual authenticator: registered, used as a second factor, to sign in without a password, and for step-up; the new pages pass axe and fit 390 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const listening = await t.app.listen({ port: 0, host: '127.0.0.1' });
    // WebAuthn needs a host name (not an IP) as its relying party: the dashboard's public address is localhost.
    const base = listening.replace('127.0.0.1', 'localhost');
    t.deps.config.publicBaseUrl = base;
    const s = await createTestStore(t);
    const password = 'browser-pass-1234';
    const { member } = await createMember(t.deps, { storeId: s.storeId, email: 'owner@example.com', name: '정소유', role: 'owner', password }, OPERATOR);
    await createMember(t.deps, { storeId: s.storeId, email: 'support@example.com', name: '한지원', role: 'support', password }, OPERATOR);

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'ko-KR' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('dialog', (d) => void d.accept());
    // Chromium's virtual authenticator (DevTools protocol): a platform authenticator that holds passkeys and verifies the user.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });

    await page.goto(`${base}/dashboard/login`);
    await checkPage(page, 'login-with-passkey-button');
    await page.fill('#email', 'owner@example.com');
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button[type=submit].pay')]);

    // Security page: add a passkey; it is the first factor, so the ten recovery codes appear once.
    await page.click('[data-testid="account-link"]');
    await page.waitForSelector('[data-testid="totp"]');
    await checkPage(page, 'account-security-empty');
    await page.fill('#pk-name', '업무용 노트북');
    await page.click('button[data-passkey="register"]');
    await page.waitForSelector('#pk-codes:not([hidden]) li');
    assert.equal(await page.locator('#pk-codes li').count(), 10);
    await checkPage(page, 'account-security-recovery-codes');
    const creds = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(creds.credentials.length, 1);
    assert.ok(creds.credentials[0].isResidentCredential, 'a discoverable credential');
    await page.goto(`${base}/dashboard/account/security`);
    assert.equal(await page.inputValue('[data-testid="passkeys"] input[name="name"]'), '업무용 노트북');

    // Authenticator app: with a factor already set, changing factors asks to confirm first (registering a passkey is
    // not a proof of one), here with the passkey; then the QR code and the key.
    await page.click('button:has-text("본인 확인 후 변경")');
    await page.waitForSelector('[data-testid="step-up"]');
    await checkPage(page, 'step-up');
    await Promise.all([page.waitForURL(`${base}/dashboard/account/security`), page.click('[data-testid="step-up"] button[data-passkey="verify"]')]);
    await page.click('button:has-text("인증 앱 설정하기")');
    await page.waitForSelector('[data-testid="totp-qr"]');
    await checkPage(page, 'account-security-totp-qr');
    const secret = (await page.locator('[data-testid="totp-secret"]').innerText()).replace(/\s/g, '');
    await page.fill('#totp-code', totpCode(secret, t.clock.now().getTime()));
    await page.click('button:has-text("확인하고 켜기")');
    await page.waitForSelector('text=인증 앱을 켰습니다');
    await checkPage(page, 'account-security-on');

    // Sign out; sign in with the password, then the passkey as the second factor.
    await page.click('button:has-text("로그아웃")');
    await page.waitForURL(/\/dashboard\/login/);
    await page.fill('#email', 'owner@example.com');
    await page.fill('#password', password);
    await Promise.all([page.waitForURL(/\/dashboard\/login\/verify/), page.click('button[type=submit].pay')]);
    await checkPage(page, 'verify');
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button[data-passkey="verify"]')]);

    // Sign out; sign in with the passkey alone (no e-mail, no password).
    await page.click('button:has-text("로그아웃")');
    await page.waitForURL(/\/dashboard\/login/);
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button[data-passkey="sign-in"]')]);
    const audit = await t.db.selectFrom('audit_log').select(['action', 'details']).where('store_id', '=', s.storeId).where('action', '=', 'session.signed_in').execute();
    assert.deepEqual(audit.map((a) => (a.details as { method: string }).method).sort(), ['passkey', 'password', 'password+passkey']);

    // Step-up by passkey for a money action: the window has passed, the business details form asks, the passkey
    // confirms, and the original form goes through.
    t.clock.advance(STEP_UP_WINDOW_MS + 60_000);
    await page.goto(`${base}/dashboard/settings`);
    await page.fill('#biz-address', '서울특별시 중구 세종대로 110');
    await page.click('[data-testid="business-details"] button[type=submit]');
    await page.waitForSelector('[data-testid="step-up"]');
    await Promise.all([page.waitForSelector('text=저장했습니다'), page.click('[data-testid="step-up"] button[data-passkey="verify"]')]);
    assert.equal(await page.inputValue('#biz-address'), '서울특별시 중구 세종대로 110');

    // Store security, members (factor column, owner actions), sessions.
    await page.goto(`${base}/dashboard/settings/security`);
    await checkPage(page, 'settings-security');
    await page.goto(`${base}/dashboard/settings/members`);
    assert.match(await page.locator(`tr[data-member="${member.id}"] [data-testid="two-factor"]`).innerText(), /인증 앱 · 패스키 1개/);
    await checkPage(page, 'settings-members');
    await page.goto(`${base}/dashboard/account/sessions`);
    await page.waitForSelector('[data-testid="sessions"]');
    await checkPage(page, 'account-sessions');

    // English.
    await page.click('button:has-text("English")');
    await page.waitForSelector('html[lang="en"]');
    await page.goto(`${base}/dashboard/account/security`);
    await checkPage(page, 'account-security-en');
    // The two step-up pages answer 401 (the action was not done), which Chromium logs; nothing else failed.
    assert.deepEqual(errors.filter((e) => !/status of 401/.test(e)), []);
  } finally {
    await browser?.close();
    await t.close();
  }
});
