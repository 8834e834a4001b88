import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { updateModeSettings } from '../../../src/stores/service';
import { TEST_CARDS } from '../../../src/payments';

/**
 * Buyers abroad (issue 41) in Chromium at 390 px and 1280 px, test mode: the payment page lists 해외 발급 카드 and PayPal
 * (USD) once the store turned them on, says what PayPal charges in dollars, shows the card number for an overseas card
 * without the 할부 choice, and the PayPal approval page names the dollars. axe-core: no violation; nothing overflows
 * sideways. Screenshots: /tmp/shots/i41c/<step>-<width>.png.
 */
test('payment page with overseas card and PayPal in Chromium at 390 px and 1280 px with axe', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync('/tmp/shots/i41c', { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'test', { foreignMethods: ['foreign_card', 'paypal'], usdKrwRate: 1350 });
    const product = await createProduct(t, s, { name: 'Photo Retouch Desktop Pro', price: 59_000 });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      const page = await ctx.newPage();
      const check = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${step} ${width}: axe`);
        await page.screenshot({ path: `/tmp/shots/i41c/${step}-${width}.png`, fullPage: true });
      };
      const fill = async () => {
        await page.fill('#buyerName', 'Jane Doe');
        await page.fill('#buyerEmail', 'jane@example.com');
        await page.fill('#buyerPhone', '010-1234-5678');
        await page.check('input[name=agreeAll]').catch(async () => {
          for (const n of ['agreeTerms', 'agreePrivacy', 'agreeThirdParty']) await page.check(`input[name=${n}]`);
        });
      };

      // An overseas card: the card number, no 할부 (a Korean card company's plan).
      const cardSession = await createSession(t, s.key, { productId: product.id });
      await page.goto(cardSession.url);
      assert.match((await page.textContent('#paypal-note')) ?? '', /US\$43\.70/, '59,000원 ÷ 1,350 = US$43.70');
      await fill();
      await page.check('input[name=method][value=foreign_card]');
      assert.ok(await page.isVisible('#cardNumber'));
      assert.equal(await page.isVisible('#installment'), false, 'no 할부 for a card issued abroad');
      assert.match((await page.textContent('#pay-button')) ?? '', /해외 발급 카드로 59,000원 결제/);
      await check('pay-foreign-card');
      await page.fill('#cardNumber', TEST_CARDS.success);
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      const cardOrderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', cardSession.id).executeTakeFirstOrThrow()).order_id!;
      assert.equal((await t.app.inject({ url: `/v1/orders/${cardOrderId}`, headers: bearer(s.key) })).json().method, 'foreign_card');

      // PayPal: the button and the approval page name the dollars.
      const ppSession = await createSession(t, s.key, { productId: product.id });
      await page.goto(ppSession.url);
      await fill();
      await page.check('input[name=method][value=paypal]');
      assert.equal(await page.isVisible('#cardNumber'), false);
      assert.match((await page.textContent('#pay-button')) ?? '', /PayPal로 US\$43\.70 \(59,000원\) 결제/);
      await check('pay-paypal');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      assert.match(page.url(), /\/approve$/);
      await check('paypal-approve');
      await Promise.all([page.waitForNavigation(), page.click('button[value=approve]')]);
      const ppOrderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', ppSession.id).executeTakeFirstOrThrow()).order_id!;
      const pp = (await t.app.inject({ url: `/v1/orders/${ppOrderId}`, headers: bearer(s.key) })).json();
      assert.deepEqual(pp.presentment, { amount: 4370, currency: 'USD', refundedAmount: 0 });
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
