import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post } from '../../helpers/app';
import { subscribe } from '../../subscriptions/factory';
import { createProduct, createSession, createSubscriptionProduct } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { buyerPagePath } from '../../../src/buyers/model';

const VIEWPORTS = [
  { name: '390', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  { name: '1280', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
] as const;
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots/i41b';

/**
 * A buyer abroad (browser in English) at a phone and a desktop size: the payment page, a subscription's page, the
 * paid page, the receipt and the buyer page read in English, the switch goes back to Korean, and axe finds no
 * violation on any of them.
 */
test('English pay page, subscription page, paid page, receipt, portal and buyer page at 390 and 1280 px: English, a switch, axe 0 violations', async (tc) => {
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
    const product = await createProduct(t, s, { price: 60_000 });
    const sub = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
    const plain = await createSubscriptionProduct(t, s);
    browser = await launchChromium(chromium);
    for (const vp of VIEWPORTS) {
      const context = await browser.newContext({ viewport: vp.viewport, deviceScaleFactor: vp.deviceScaleFactor, isMobile: vp.isMobile, hasTouch: vp.hasTouch, locale: 'en-US' });
      const page = await context.newPage();
      const axe = async (what: string) => {
        const result = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `axe violations on ${what} (${vp.name} px)`);
      };
      const shot = (name: string) => page.screenshot({ path: `${SHOTS}/en-${name}-${vp.name}.png`, fullPage: true });

      const cs = await createSession(t, s.key, { productId: product.id });
      await page.goto(cs.url);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.ok(await page.getByRole('heading', { name: 'Checkout' }).isVisible());
      await page.locator('input[name=method][value=card]').check();
      assert.equal((await page.locator('#pay-button').textContent())?.trim(), 'Pay ₩60,000 by card');
      await shot('pay');
      await axe('payment page');

      const subSession = await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly' });
      await page.goto(subSession.url);
      assert.ok(await page.getByRole('heading', { name: 'Recurring payment after the free trial' }).isVisible());
      await shot('pay-subscription');
      await axe('subscription payment page');

      // Pay with the test card; the paid page and its receipt link stay in English.
      await page.goto(cs.url);
      await page.fill('#buyerName', 'Jane Doe');
      await page.fill('#buyerEmail', `jane-${vp.name}@example.com`);
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.locator('input[name=method][value=card]').check();
      await page.fill('#cardNumber', '4242424242424242');
      await page.check('#agreeAll');
      await page.click('#pay-button');
      await page.waitForLoadState('load');
      assert.ok(await page.getByRole('heading', { name: 'Payment complete' }).isVisible());
      await shot('paid');
      await axe('paid page');

      await page.click('text=Open the receipt page (refund requests)');
      await page.waitForLoadState('load');
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      await shot('receipt');
      await axe('receipt');

      const { subscriptionId } = await subscribe(t, s, { productId: plain.id, buyerEmail: `member-${vp.name}@example.com` });
      const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId, returnUrl: 'https://example.com/account' } });
      await page.goto(portal.json().url);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.ok(await page.getByRole('heading', { name: 'Manage subscription' }).isVisible());
      await shot('portal');
      await axe('portal');

      await page.goto(`${address}${buyerPagePath(s.storeId, 'test')}`);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      await shot('buyer');
      await axe('buyer page');

      // The switch: Korean, remembered for the next page (a fresh session: a paid one keeps the language it was paid in).
      const fresh = await createSession(t, s.key, { productId: product.id });
      await page.goto(fresh.url);
      await page.click('#lang-switch');
      await page.waitForLoadState('load');
      assert.equal(await page.getAttribute('html', 'lang'), 'ko');
      await page.goto(fresh.url);
      assert.equal(await page.getAttribute('html', 'lang'), 'ko', 'the cookie the switch set beats the browser');
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
