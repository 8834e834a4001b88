import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { createSubscriptionProduct, owner } from '../../checkout/factory';
import { subscribe } from '../factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

// Issue 29 (follow-up): a buyer upgrades basic → pro in the portal, then the difference order is refunded in full
// inside its window (청약철회 of the upgrade): the portal shows basic at 9,900 again (before the fix: pro 19,900).
// Screenshots at 390 px and 1280 px.

const SHOTS = '/tmp/shots/i29b';
const kst = (v: string) => new Date(`${v}+09:00`);

test('portal after an upgrade\'s difference order is withdrawn: the earlier plan and price', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    t.clock.set(kst('2027-03-02T10:00:00'));
    const plans = [
      { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
      { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
    ];
    const p = await createSubscriptionProduct(t, s, { name: '프로 멤버십', plans });
    const sub = await subscribe(t, s, { productId: p.id, interval: 'monthly' });
    const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/test-clock/advance`, headers: owner(s), payload: { days: 2 } });
    assert.equal(r.statusCode, 200, r.body);

    const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId, returnUrl: 'https://example.com/account' } });
    assert.equal(created.statusCode, 200, created.body);
    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const page = await context.newPage();
    assert.equal((await page.goto(created.json().url))?.status(), 200);
    // The buyer's own upgrade through the page.
    await page.click('summary:has-text("요금제 변경")');
    await page.check('input[name="plan"][value="pro:monthly"]');
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("요금제 변경")')]);
    assert.match(await page.locator('main').innerText(), /차액 9,354원을 결제했습니다/);
    assert.match(await page.locator('p.muted').first().innerText(), /프로 · 월간 19,900원/);
    await page.screenshot({ path: `${SHOTS}/portal-upgraded-390.png`, fullPage: true });

    // The difference order refunded in full inside its window: the upgrade is withdrawn.
    const diff = await t.db.selectFrom('orders').select('id').where('subscription_id', '=', sub.subscriptionId).where('subscription_event', '=', 'difference').executeTakeFirstOrThrow();
    const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${diff.id}/refund`, headers: post(s.key), payload: {} });
    assert.equal(refund.statusCode, 200, refund.body);

    await page.goto(created.json().url);
    assert.match(await page.locator('p.muted').first().innerText(), /베이직 · 월간 9,900원/);
    await page.click('summary:has-text("요금제 변경")');
    assert.equal(await page.isChecked('input[name="plan"][value="basic:monthly"]'), true, 'the current plan is basic again');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    assert.equal(overflow, false);
    await page.screenshot({ path: `${SHOTS}/portal-upgrade-withdrawn-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${SHOTS}/portal-upgrade-withdrawn-1280.png`, fullPage: true });

    const after = (await t.app.inject({ url: `/v1/subscriptions/${sub.subscriptionId}`, headers: bearer(s.key) })).json();
    assert.equal(after.planId, 'basic');
    assert.equal(after.amount, 9_900);
  } finally {
    await browser?.close();
    await t.close();
  }
});
