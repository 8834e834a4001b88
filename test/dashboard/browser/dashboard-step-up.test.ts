import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createTestApp } from '../../helpers/app';
import { addSessionToBrowser, postForm, signIn } from '../helpers';
import { enrolTotp, totpCode } from '../two-factor-helpers';
import { createSubscriptionProduct, subscribe } from '../../subscriptions/factory';
import { insertPasskey } from '../../../src/dashboard/sign-in/second-factor-repo';
import { regenerateRecoveryCodes } from '../../../src/dashboard/sign-in/second-factor';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/i39a';

/** The page at 390 px and 1280 px: no sideways scroll, no axe violation of any impact, a screenshot of each. */
async function checkPage(page: Page, name: string): Promise<void> {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  for (const [w, h] of [
    [390, 844],
    [1280, 800],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} fits ${w} px`);
    const result = await new AxeBuilder({ page: page as any }).analyze();
    assert.deepEqual(result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${name} at ${w}px: axe`);
    await page.screenshot({ path: `${SHOTS}/${name}-${w}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

test('step-up in Chromium: an immediate cancel asks for the code and then refunds; a stale session sees a pending authenticator as "not finished" and restarts it after confirming; axe 0 at 390 and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('127.0.0.1', 'localhost');
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '정소유' });
    const { secret } = await enrolTotp(t, owner);
    assert.equal((await postForm(t, owner, '/dashboard/settings/security', { policy: 'none', refundStepUpAmount: '1000' })).statusCode, 200);
    const sub = await subscribe(t, owner.store, { productId: (await createSubscriptionProduct(t, owner.store)).id });
    t.clock.advance(20 * 60_000);

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'ko-KR' });
    await addSessionToBrowser(context, base, owner);
    const page = await context.newPage();

    // The immediate cancel of 9,900원 asks first; the code sends the original form on.
    await page.goto(`${base}/dashboard/subscriptions/${sub.subscriptionId}`);
    await page.click('button:has-text("지금 해지하고 환불")');
    await page.waitForSelector('[data-testid="step-up"]');
    assert.match(await page.innerText('[data-testid="step-up"]'), /기준 금액을 넘는 환불/);
    await checkPage(page, 'step-up-immediate-cancel');
    t.clock.advance(30_000);
    await page.fill('#stepup-code', totpCode(secret, t.clock.now().getTime()));
    await Promise.all([page.waitForURL(/done=canceled/), page.click('#stepup-form button[type=submit]')]);
    const refunded = await t.db.selectFrom('order_refunds').select('amount').where('order_id', '=', sub.orderId).execute();
    assert.deepEqual(refunded.map((r) => Number(r.amount)), [9_900]);

    // A member with a passkey left an authenticator setup unfinished; 20 minutes later the page hides its key.
    const member = await signIn(t, { store: owner.store, role: 'admin', name: '한관리' });
    await insertPasskey(t.db, { id: 'pk_shot', member_id: member.memberId, store_id: member.storeId, credential_id: 'cred-shot', public_key: 'AA', sign_count: 0, transports: [], name: '휴대폰', device_type: 'singleDevice', backed_up: false, created_at: t.clock.now(), last_used_at: null });
    const recovery = await regenerateRecoveryCodes(t.deps, member.memberId);
    assert.equal((await postForm(t, member, '/dashboard/account/totp/start', { _stepup_code: recovery[0] })).statusCode, 303);
    t.clock.advance(20 * 60_000);
    const other = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'ko-KR' });
    await addSessionToBrowser(other, base, member);
    const p2 = await other.newPage();
    await p2.goto(`${base}/dashboard/account/security`);
    await p2.waitForSelector('[data-testid="totp-pending-hidden"]');
    assert.equal(await p2.locator('[data-testid="totp-secret"]').count(), 0);
    await checkPage(p2, 'account-security-pending-hidden');
    await p2.click('button:has-text("본인 확인 후 다시 설정하기")');
    await p2.waitForSelector('[data-testid="step-up"]');
    await checkPage(p2, 'step-up-factors');
    await p2.fill('#stepup-code', recovery[1]);
    await Promise.all([p2.waitForURL(`${base}/dashboard/account/security`), p2.click('#stepup-form button[type=submit]')]);
    await p2.waitForSelector('[data-testid="totp-qr"]');
    await checkPage(p2, 'account-security-restarted');

    await page.goto(`${base}/dashboard/settings/security`);
    await checkPage(page, 'settings-security');
  } finally {
    await browser?.close();
    await t.close();
  }
});
