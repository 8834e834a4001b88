import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, bearer } from '../../helpers/app';
import { createProduct, createSession, formPost, payPath } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { signIn, addSessionToBrowser } from '../../dashboard/helpers';

/**
 * 세금계산서 in Chromium at 390 px and 1280 px (test mode, the simulator provider): the payment page's 세금계산서 choice
 * beside the 현금영수증 ones (a wrong 사업자등록번호 refused next to its field), the receipt page with the issued
 * document, and the dashboard's list. axe-core finds no violation; nothing scrolls sideways.
 * Screenshots: /tmp/shots/i40b/<step>-<width>.png.
 */
test('세금계산서 on the payment page, the receipt page and the dashboard list in Chromium at 390 px and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync('/tmp/shots/i40b', { recursive: true });
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
      const check = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], `${step} ${width}`);
        await page.screenshot({ path: `/tmp/shots/i40b/${step}-${width}.png`, fullPage: true });
      };

      const session = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'https://example.com/ok' });
      await page.goto(`${base}${payPath(session)}`);
      await page.fill('#buyerName', '김구매');
      await page.fill('#buyerEmail', 'buyer@example.com');
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.check('input[name=method][value=transfer]');
      await page.check('input[name=cashReceiptType][value=tax_invoice]');
      await page.fill('#taxInvoiceBrn', '220-81-62518');
      await page.fill('#taxInvoiceCompany', '주식회사 구매기업');
      await page.fill('#taxInvoiceRepresentative', '이대표');
      await page.fill('#taxInvoiceEmail', 'tax@buyer.example');
      await page.check('#agreeAll');
      await Promise.all([page.waitForLoadState('load'), page.click('#pay-button')]);
      await page.waitForSelector('#taxInvoiceBrn-err');
      assert.match((await page.textContent('#taxInvoiceBrn-err')) ?? '', /검증번호 불일치/);
      await page.locator('#tax-invoice-fields').scrollIntoViewIfNeeded();
      await check('pay-refused');
      await page.fill('#taxInvoiceBrn', '220-81-62517');
      if (!(await page.isChecked('#agreeAll'))) await page.check('#agreeAll');
      await Promise.all([page.waitForURL(/approve|simulat/), page.click('#pay-button')]);
      const approved = await formPost(t, `${payPath(session)}/approve`, { decision: 'approve' });
      const orderId = new URL(String(approved.headers.location)).searchParams.get('order_id')!;
      assert.ok(orderId, approved.body);
      const inv = await t.db.selectFrom('tax_invoices').selectAll().where('order_id', '=', orderId).executeTakeFirstOrThrow();
      assert.equal(inv.status, 'requested');

      await page.goto(`${base}/dashboard/tax-invoices`);
      await page.click(`tr[data-id="${inv.id}"] button[type=submit]`);
      await page.waitForURL(/done=issued/);
      assert.match((await page.textContent(`tr[data-id="${inv.id}"]`)) ?? '', /발급 완료/);
      await check('dashboard-list');

      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(owner.store.key) })).json();
      await page.goto(order.receiptUrl);
      await page.locator('#tax-invoice').scrollIntoViewIfNeeded();
      assert.match((await page.textContent('#tax-invoice')) ?? '', /발급 완료/);
      await check('receipt');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
