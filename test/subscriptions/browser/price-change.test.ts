import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post } from '../../helpers/app';
import { owner } from '../../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../factory';
import { addSessionToBrowser, signIn } from '../../dashboard/helpers';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

test('a subscriber sees a scheduled price increase in the portal, with what happens without consent, and agrees; the seller sees the tally on the product page (390 px and desktop)', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    t.clock.set(new Date('2026-11-01T00:00:00Z'));
    const s = await createTestStore(t);
    const product = await createSubscriptionProduct(t, s, { name: '프로 멤버십' });
    const { subscriptionId } = await subscribe(t, s, { productId: product.id, buyerEmail: 'subscriber@example.com' });
    const scheduled = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/products/${product.id}/plans/basic/price-changes`,
      headers: owner(s),
      payload: { monthlyPrice: 12_900, effectiveAt: '2026-12-01T00:00:00Z' },
    });
    assert.equal(scheduled.statusCode, 201, scheduled.body);
    const portalUrl = (await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } })).json().url as string;

    browser = await launchChromium(chromium);
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' })).newPage();
    assert.equal((await phone.goto(portalUrl))?.status(), 200);
    const box = phone.locator('[data-price-change][data-consent="required"]');
    assert.ok(await box.isVisible());
    const text = await box.innerText();
    assert.match(text, /월 9,900원 → 월 12,900원/);
    assert.match(text, /동의하지 않으시면 구독은 2026년 12월 1일에 종료되고 새 가격은 결제되지 않습니다/);
    const bb = await box.boundingBox();
    assert.ok(bb && bb.x >= 0 && bb.x + bb.width <= 390, 'the notice fits the phone width');
    await phone.screenshot({ path: '/tmp/price-portal-390.png', fullPage: true });
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'ko-KR' });
    await desktop.goto(portalUrl);
    await desktop.screenshot({ path: '/tmp/price-portal-1280.png', fullPage: true });

    await Promise.all([phone.waitForURL(/notice=/), phone.click('button[data-action="accept-price"]')]);
    assert.ok(await phone.locator('[data-price-change][data-consent="accepted"]').isVisible());
    assert.match(await phone.locator('[role="status"]').first().innerText(), /새 가격에 동의했습니다/);
    await phone.screenshot({ path: '/tmp/price-portal-accepted-390.png', fullPage: true });

    const admin = await signIn(t, { store: s, role: 'admin' });
    for (const [width, height] of [[390, 844], [1280, 900]] as const) {
      const ctx = await browser.newContext({ viewport: { width, height }, locale: 'ko-KR' });
      await addSessionToBrowser(ctx, address, admin);
      const page = await ctx.newPage();
      assert.equal((await page.goto(`${address}/dashboard/products/${product.id}#price-changes`))?.status(), 200);
      assert.match(await page.locator('[data-testid="tally"]').innerText(), /알림 1 · 동의 1\/1/);
      await page.locator('#price-changes').screenshot({ path: `/tmp/price-dashboard-${width}.png` });
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
