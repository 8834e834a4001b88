import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * 현금영수증 in Chromium at 390 px and 1280 px (test mode): the choice appears only for 계좌이체·가상계좌, a transfer with
 * 소득공제 is paid on the simulator's approval page, and the receipt shows the test receipt. Nothing overflows sideways.
 * Screenshots: /tmp/shots/i32c/<step>-<width>.png.
 */
test('현금영수증 choice and receipt in Chromium at 390 px and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync('/tmp/shots/i32c', { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const product = await createProduct(t, s, { name: '사진 보정 데스크톱 앱 Pro', price: 59_000 });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      const page = await ctx.newPage();
      const noOverflow = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        await page.screenshot({ path: `/tmp/shots/i32c/${step}-${width}.png`, fullPage: true });
      };
      const session = await createSession(t, s.key, { productId: product.id });
      await page.goto(session.url);
      await page.check('input[name=method][value=card]');
      assert.equal(await page.isVisible('input[name=cashReceiptType][value=income]'), false, 'no 현금영수증 for a card');
      await page.fill('#buyerName', '김구매');
      await page.fill('#buyerEmail', 'buyer@example.com');
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.check('input[name=method][value=transfer]');
      assert.ok(await page.isVisible('input[name=cashReceiptType][value=income]'));
      await page.check('input[name=cashReceiptType][value=income]');
      await page.fill('#cashReceiptNumber', '010-1234-5678');
      await page.check('input[name=agreeAll]').catch(async () => {
        for (const n of ['agreeTerms', 'agreePrivacy', 'agreeThirdParty']) await page.check(`input[name=${n}]`);
      });
      await noOverflow('pay-form');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      await Promise.all([page.waitForNavigation(), page.click('button[value=approve]')]);
      const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
      // Issue 40: the receipt is issued by the job right after the payment (the simulator's test receipt).
      await t.deps.worker.runOnce();
      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
      await page.goto(order.receiptUrl);
      assert.ok(await page.isVisible('#cash-receipt'));
      assert.equal((await page.textContent('#cash-receipt-number'))?.trim(), order.cashReceipt.issueNumber);
      await noOverflow('receipt');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
