import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * 계좌이체 and 가상계좌 in Chromium at 390 px and 1280 px (test mode): the payment page offers both; a 가상계좌 is issued
 * on the simulator's approval page and shown with its account; the receipt shows the account and the test deposit
 * button; after the deposit the buyer enters a refund account. Nothing overflows sideways. Screenshots:
 * /tmp/shots/i32a/<step>-<width>.png.
 */
test('계좌이체 and 가상계좌 pages in Chromium at 390 px and 1280 px: issue, deposit, refund account', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync('/tmp/shots/i32a', { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const product = await createProduct(t, s, { name: '사진 보정 데스크톱 앱 Pro', price: 59_000, license: { mode: 'service', maxActivations: 3, validityDays: 365 } });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      const page = await ctx.newPage();
      const noOverflow = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        await page.screenshot({ path: `/tmp/shots/i32a/${step}-${width}.png`, fullPage: true });
      };
      const session = await createSession(t, s.key, { productId: product.id });
      await page.goto(session.url);
      assert.ok(await page.isVisible('input[name=method][value=transfer]'));
      await page.fill('#buyerName', '김구매');
      await page.fill('#buyerEmail', 'buyer@example.com');
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.check('input[name=method][value=virtual_account]');
      assert.match((await page.textContent('#pay-button')) ?? '', /가상계좌로 59,000원 결제/);
      await page.check('input[name=agreeAll]').catch(async () => {
        for (const n of ['agreeTerms', 'agreePrivacy', 'agreeThirdParty']) await page.check(`input[name=${n}]`);
      });
      await noOverflow('pay-form');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      assert.match(page.url(), /\/approve$/);
      await noOverflow('va-approve');
      await Promise.all([page.waitForNavigation(), page.click('button[value=approve]')]);
      assert.match((await page.textContent('h1')) ?? '', /가상계좌가 발급되었습니다/);
      assert.ok(await page.isVisible('#va-account'));
      await noOverflow('va-issued');

      const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
      await page.goto(order.receiptUrl);
      assert.ok(await page.isVisible('#virtual-account'));
      assert.equal((await page.textContent('#va-account'))?.trim(), order.virtualAccount.accountNumber);
      assert.match((await page.textContent('#order-status')) ?? '', /입금 대기/);
      await noOverflow('receipt-waiting');
      await Promise.all([page.waitForNavigation(), page.click('#test-deposit')]);
      assert.match((await page.textContent('#order-status')) ?? '', /결제 완료/);
      assert.ok(await page.isVisible('#refund-account-form'));
      await page.selectOption('#bankCode', '88');
      await page.fill('#accountNumber', '110-123-456789');
      await page.fill('#holderName', '김구매');
      await Promise.all([page.waitForNavigation(), page.click('#refund-account-form button[type=submit]')]);
      assert.match((await page.textContent('#refund-account-state')) ?? '', /신한 \*\*\*\*6789/);
      await noOverflow('receipt-paid');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
