import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, bearer } from '../../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { signIn, addSessionToBrowser } from '../helpers';

/**
 * Issue 40: a 현금영수증 the gateway refused, on the dashboard's order page in Chromium at 390 px and 1280 px (test mode:
 * the simulator refuses its test number 010-0000-0000): flagged 발급 실패 with the gateway's message, a retry button and
 * the form to issue with another number; axe finds nothing; nothing overflows sideways; issuing with another number
 * clears the flag. Screenshots: /tmp/shots/i40a/<step>-<width>.png.
 */
test('a refused 현금영수증 on the dashboard order page in Chromium at 390 px and 1280 px, axe clean', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync('/tmp/shots/i40a', { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    const product = await createProduct(t, owner.store, { name: '사진 보정 데스크톱 앱 Pro', price: 59_000, stock: 10 });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const session = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'https://example.com/ok' });
      assert.equal((await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'income', cashReceiptNumber: '010-0000-0000' })).statusCode, 303);
      const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
      const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
      await t.deps.worker.runOnce();
      assert.equal((await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(owner.store.key) })).json().cashReceipt.status, 'failed');

      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      await addSessionToBrowser(ctx, base, owner);
      const page = await ctx.newPage();
      await page.goto(`${base}/dashboard/orders/${orderId}`);
      await page.locator('#cash-receipt-failed').waitFor();
      assert.match(await page.locator('#cash-receipt-failure').innerText(), /테스트 거절 번호/);
      assert.match(await page.locator('#cash-receipt-status').innerText(), /발급 실패/);
      assert.ok(await page.locator('#cash-receipt-retry button').isVisible());
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `no sideways scroll at ${width} px (${overflow})`);
      await page.screenshot({ path: `/tmp/shots/i40a/failed-${width}.png`, fullPage: true });
      await page.locator('section[aria-labelledby="h-cash-receipt"]').screenshot({ path: `/tmp/shots/i40a/failed-section-${width}.png` });
      const axe = await new AxeBuilder({ page }).exclude('.testbanner').analyze();
      assert.deepEqual(axe.violations.map((v) => v.id), [], `order page: axe ${JSON.stringify(axe.violations.map((v) => v.nodes.map((n) => n.html.slice(0, 200))))}`);

      // Issued by hand with another number: the flag goes, the receipt shows.
      await page.locator('#cash-receipt-number').fill('010-7777-1234');
      await Promise.all([page.waitForURL(/done=cashReceipt/), page.locator('#cash-receipt-form button[type=submit]').click()]);
      assert.equal(await page.locator('#cash-receipt-failed').count(), 0);
      assert.match(await page.locator('#cash-receipt-status').innerText(), /발급됨/);
      await page.screenshot({ path: `/tmp/shots/i40a/issued-${width}.png`, fullPage: true });
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
