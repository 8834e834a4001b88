import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { createSubscriptionProduct, owner } from '../../checkout/factory';
import { subscribe } from '../factory';
import { acceptOffer } from '../../../src/subscriptions/plan-change/offers';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

// Issue 29, item 3: the portal confirmation of an immediate cancel whose refund awaits the seller names every part —
// what is refunded at once, what is approved automatically and by when, what awaits the seller — and says the service
// runs until the decision. Screenshots at 390 px and 1280 px.

const SHOTS = '/tmp/shots/i29a';
const kst = (v: string) => new Date(`${v}+09:00`);

test('portal cancel awaiting the seller: the confirmation names the statutory part with its date and the part the seller decides', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    t.clock.set(kst('2027-01-10T10:00:00'));
    const plans = [
      { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
      { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
    ];
    const p = await createSubscriptionProduct(t, s, { name: '프로 멤버십', plans, refundPolicy: { clawbackDisclosed: true } });
    const sub = await subscribe(t, s, { productId: p.id, interval: 'yearly' });
    const advance = async (to: Date) => {
      const row = await t.db.selectFrom('subscriptions').select('test_clock_offset_ms').where('id', '=', sub.subscriptionId).executeTakeFirstOrThrow();
      const minutes = Math.round((to.getTime() - (t.clock.now().getTime() + Number(row.test_clock_offset_ms))) / 60_000);
      const r = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/test-clock/advance`, headers: owner(s), payload: { minutes } });
      assert.equal(r.statusCode, 200, r.body);
    };
    await advance(kst('2027-04-20T10:00:00'));
    const up = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${sub.subscriptionId}/change-plan`, headers: owner(s), payload: { planId: 'pro', interval: 'yearly' } });
    assert.equal(up.statusCode, 200, up.body);
    // The seller's upgrade is an offer; the buyer accepts it, which charges the difference then.
    assert.equal((await acceptOffer(t.deps, sub.subscriptionId, up.json().offer.id)).timing, 'now');
    await advance(kst('2027-04-22T10:00:00'));

    const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId, returnUrl: 'https://example.com/account' } });
    assert.equal(created.statusCode, 200, created.body);
    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const page = await context.newPage();
    assert.equal((await page.goto(created.json().url))?.status(), 200);
    await page.screenshot({ path: `${SHOTS}/portal-before-390.png`, fullPage: true });
    await Promise.all([page.waitForLoadState('load'), page.waitForNavigation(), page.click('button[data-action="immediate"]')]);
    const text = await page.locator('main').innerText();
    assert.match(text, /해지 요청이 접수되었습니다/);
    assert.match(text, /즉시 환불\s+0원/);
    assert.match(text, /청약철회 환불 \(자동 승인\)/);
    assert.match(text, /72,602원/);
    assert.match(text, /2027년 4월 27일 정오\(12시\)까지/);
    assert.match(text, /판매자 확인 후 환불/);
    assert.match(text, /58,509원/);
    assert.match(text, /2028년 1월 10일까지/);
    // Nothing overflows the phone's width.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    assert.equal(overflow, false);
    await page.screenshot({ path: `${SHOTS}/portal-cancel-pending-390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `${SHOTS}/portal-cancel-pending-1280.png`, fullPage: true });

    const after = (await t.app.inject({ url: `/v1/subscriptions/${sub.subscriptionId}`, headers: bearer(s.key) })).json();
    assert.equal(after.status, 'active');
    assert.equal(after.cancelAtPeriodEnd, true);
  } finally {
    await browser?.close();
    await t.close();
  }
});
