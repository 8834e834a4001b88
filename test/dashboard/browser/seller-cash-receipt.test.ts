import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, bearer } from '../../helpers/app';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { signIn, addSessionToBrowser } from '../helpers';

/**
 * The seller issues a 현금영수증 afterwards from the order page, in Chromium at 390 px and 1280 px (test mode): a wrong
 * 사업자등록번호 is refused next to the field, a 소득공제 number issues the test receipt, the order page shows it and the
 * buyer's receipt page shows it as it does one issued with the payment. Nothing overflows sideways.
 * Screenshots: /tmp/shots/i32cr/<step>-<width>.png.
 */
test('seller-issued 현금영수증 from the dashboard in Chromium at 390 px and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync('/tmp/shots/i32cr', { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    const product = await createProduct(t, owner.store, { name: '사진 보정 데스크톱 앱 Pro', price: 59_000, stock: 10 });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      await addSessionToBrowser(ctx, base, owner);
      const page = await ctx.newPage();
      const noOverflow = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        await page.screenshot({ path: `/tmp/shots/i32cr/${step}-${width}.png`, fullPage: true });
      };
      const session = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'https://example.com/ok' });
      assert.equal((await submitPayForm(t, session, { method: 'transfer', cashReceiptType: 'none' })).statusCode, 303);
      const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
      const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;

      await page.goto(`${base}/dashboard/orders/${orderId}`);
      assert.ok(await page.isVisible('#cash-receipt-form'));
      await page.check('input[name=type][value=지출증빙]');
      await page.fill('#cash-receipt-number', '123-45-678');
      await Promise.all([page.waitForLoadState('load'), page.click('#cash-receipt-form button[type=submit]')]);
      await page.waitForSelector('#cash-receipt-err');
      assert.match((await page.textContent('#cash-receipt-err')) ?? '', /사업자등록번호 10자리/);
      assert.equal(await page.getAttribute('#cash-receipt-number', 'aria-invalid'), 'true');
      await page.locator('#cash-receipt-form').scrollIntoViewIfNeeded();
      await noOverflow('refused');

      await page.check('input[name=type][value=소득공제]');
      await page.fill('#cash-receipt-number', '010-1234-5678');
      await Promise.all([page.waitForURL(/done=cashReceipt/), page.click('#cash-receipt-form button[type=submit]')]);
      assert.match((await page.textContent('[data-testid=flash]')) ?? '', /현금영수증을 발급했습니다/);
      assert.equal(await page.isVisible('#cash-receipt-form'), false);
      assert.match((await page.textContent('#cash-receipt')) ?? '', /소득공제 · 발급됨 · 010\*\*\*\*5678 \(판매자 발급\) · T\d{8}/);
      await noOverflow('issued');

      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(owner.store.key) })).json();
      await page.goto(order.receiptUrl);
      assert.equal((await page.textContent('#cash-receipt-number'))?.trim(), order.cashReceipt.issueNumber);
      assert.ok(!((await page.content()).includes('01012345678')), 'the number is shown masked only');
      await noOverflow('receipt');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
