import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../../helpers/app';
import { createSession, createSubscriptionProduct } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const VIEWPORTS = [
  { name: 'mobile', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
] as const;
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots/i30b';

/**
 * A session whose e-mail the seller fixed (customerEmailLocked): in Chromium at a phone and a desktop size the e-mail
 * field is read-only with its note, typing does not change it, and axe finds nothing serious.
 */
test('payment page with a seller-fixed e-mail: read-only with its note at 390 px and desktop', async (tc) => {
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
    const product = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 14 }] });
    browser = await launchChromium(chromium);
    for (const vp of VIEWPORTS) {
      const cs = await createSession(t, s.key, { productId: product.id, planId: 'basic', interval: 'monthly', customer: { name: '김구매', email: 'member@example.com' }, customerEmailLocked: true });
      const context = await browser.newContext({ viewport: vp.viewport, deviceScaleFactor: vp.deviceScaleFactor, isMobile: vp.isMobile, hasTouch: vp.hasTouch, locale: 'ko-KR' });
      const page = await context.newPage();
      await page.goto(cs.url);
      const email = page.locator('#buyerEmail');
      assert.equal(await email.getAttribute('readonly'), '');
      assert.ok(await page.getByText('판매자가 지정한 이메일입니다').isVisible());
      await page.screenshot({ path: `${SHOTS}/locked-email-${vp.name}.png`, fullPage: true });
      await email.click();
      await page.keyboard.type('x');
      assert.equal(await email.inputValue(), 'member@example.com', 'typing does not change it');
      const result = await new AxeBuilder({ page }).analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad.map((v) => v.id), [], `serious accessibility violations (${vp.name})`);
      // Sent anyway with another address (a forged form): the server refuses it and the page says why.
      await page.evaluate(() => {
        const el = document.getElementById('buyerEmail') as HTMLInputElement;
        el.removeAttribute('readonly');
        el.value = 'someone-else@example.com';
      });
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.fill('#cardNumber', '4242424242424242');
      await page.check('#agreeAll');
      await page.check('#agreeRecurring');
      await page.click('#pay-form button[type=submit]');
      await page.waitForLoadState('load');
      assert.ok(await page.getByText('이 결제의 이메일은 판매자가 지정해 바꿀 수 없습니다.').isVisible());
      assert.equal(await page.locator('#buyerEmail').inputValue(), 'member@example.com');
      await page.screenshot({ path: `${SHOTS}/locked-email-refused-${vp.name}.png`, fullPage: true });
      await page.screenshot({ path: `${SHOTS}/locked-email-refused-${vp.name}-top.png`, clip: { x: 0, y: 0, width: vp.viewport.width, height: 800 } });
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
