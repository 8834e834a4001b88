import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { ManualClock } from '../../../src/platform/clock';

/**
 * 휴대폰 결제 and 상품권 (issue 41) in Chromium at 390 px and 1280 px (test mode): the payment page offers 휴대폰 and the
 * three 상품권; a phone payment is approved on the simulator's approval page; its receipt explains the refund rule (in
 * its month: the phone bill; after it: the buyer's account, with the refund-account form). axe-core finds no violation
 * and nothing scrolls sideways. Screenshots: /tmp/shots/i41a/<step>-<width>.png.
 */
test('휴대폰 and 상품권 on the payment page, the approval page and the receipt, in Chromium at 390 px and 1280 px with axe', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync('/tmp/shots/i41a', { recursive: true });
  const clock = new ManualClock('2026-11-20T03:00:00.000Z');
  const t = await createTestApp({ clock });
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const product = await createProduct(t, s, { name: '웹소설 전자책 1권', price: 4_400 });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      clock.set('2026-11-20T03:00:00.000Z');
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      const page = await ctx.newPage();
      const check = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${step} ${width}: axe`);
        await page.screenshot({ path: `/tmp/shots/i41a/${step}-${width}.png`, fullPage: true });
      };
      const session = await createSession(t, s.key, { productId: product.id });
      await page.goto(session.url);
      for (const m of ['mobile_phone', 'culture_gift', 'book_gift', 'game_gift']) assert.ok(await page.isVisible(`input[name=method][value=${m}]`), m);
      await page.fill('#buyerName', '김구매');
      await page.fill('#buyerEmail', 'buyer@example.com');
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.check('input[name=method][value=mobile_phone]');
      assert.match((await page.textContent('#pay-button')) ?? '', /휴대폰으로 4,400원 결제/);
      await page.check('input[name=agreeAll]').catch(async () => {
        for (const n of ['agreeTerms', 'agreePrivacy', 'agreeThirdParty']) await page.check(`input[name=${n}]`);
      });
      await check('pay-form');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      assert.match(page.url(), /\/approve$/);
      assert.match((await page.textContent('main, body')) ?? '', /휴대폰 결제 승인 화면/);
      await check('phone-approve');
      await Promise.all([page.waitForNavigation(), page.click('button[value=approve]')]);

      const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
      assert.equal(order.method, 'mobile_phone');
      await page.goto(order.receiptUrl);
      assert.match((await page.textContent('#phone-refund-rule')) ?? '', /결제한 달\(2026년 11월, 한국 시간\) 안에 환불되면/);
      await check('receipt-in-month');
      clock.set('2026-12-02T03:00:00.000Z');
      await page.goto(order.receiptUrl);
      assert.match((await page.textContent('#phone-refund-rule')) ?? '', /결제한 달\(2026년 11월\)이 지나/);
      assert.ok(await page.isVisible('#rr-bankCode'), 'the refund request asks for the account');
      assert.match((await page.textContent('#request-account-state')) ?? '', /결제한 달이 지난 휴대폰 결제는 이 계좌로 환불됩니다/);
      await check('receipt-after-month');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
