import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post } from '../../helpers/app';
import { subscribe } from '../factory';
import { createSubscriptionProduct, owner } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots/i41d';

/**
 * A buyer abroad on a phone (390 px, browser in English) opens the portal while a price increase waits for their
 * consent: the box reads in English, both answers are buttons, and axe finds no violation (issue 41).
 */
test('English portal with a price-increase box at 390 px: English, both answers, axe 0 violations', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const product = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }] });
    const { subscriptionId } = await subscribe(t, s, { productId: product.id });
    const scheduled = await t.app.inject({ method: 'POST', url: `/admin/v1/products/${product.id}/plans/basic/price-changes`, headers: owner(s), payload: { monthlyPrice: 12_900, effectiveAt: new Date(t.clock.now().getTime() + 30 * 86_400_000).toISOString() } });
    assert.equal(scheduled.statusCode, 201, scheduled.body);
    const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
    assert.equal(created.statusCode, 200, created.body);

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(created.json().url);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    const box = page.locator('[data-price-change][data-consent="required"]');
    assert.ok(await box.getByRole('heading', { name: 'Price change · Your consent is needed' }).isVisible());
    assert.equal((await box.locator('[data-action=accept-price]').textContent())?.trim(), 'Agree to the new price (₩12,900/month)');
    assert.ok(await box.locator('[data-action=decline-price]').isVisible());
    await box.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/en-portal-price-change-390.png`, fullPage: true });
    const result = await new AxeBuilder({ page }).analyze();
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], 'axe violations on the English portal (390 px)');
  } finally {
    await browser?.close();
    await t.close();
  }
});
