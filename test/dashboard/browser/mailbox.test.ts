import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { addSessionToBrowser, signIn } from '../helpers';
import { TEST_CARDS } from '../../../src/payments';
import { runMailOnce } from '../../../src/mail/dispatch';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

test('pay a test-mode order in Chromium, then the dashboard mailbox shows the order confirmation with the licence key (390 px and desktop, screenshots /tmp/mail-*.png)', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const s = await createTestStore(t);
    const product = await createProduct(t, s, { name: '사진 편집 앱 (평생 라이선스)', price: 39_000, license: { mode: 'service' } });
    const session = await createSession(t, s.key, { productId: product.id, customer: { name: '김구매', email: 'buyer@example.com' }, successUrl: `${base}/healthz` });

    browser = await launchChromium(chromium);
    const buyer = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'ko-KR' });
    const pay = await buyer.newPage();
    await pay.goto(session.url);
    await pay.fill('#buyerPhone', '010-1234-5678');
    await pay.check('input[name="method"][value="card"]');
    await pay.fill('#cardNumber', TEST_CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
    await pay.check('#agreeAll');
    await Promise.all([pay.waitForURL(`${base}/healthz?**`), pay.click('button.pay')]);
    const orderId = new URL(pay.url()).searchParams.get('order_id')!;
    await buyer.close();
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    const key = order.licenses[0].key as string;
    assert.ok(key);

    // The worker renders the mail and keeps it (test mode never sends).
    await runMailOnce(t.deps, t.clock.now());

    const owner = await signIn(t, { store: s });
    for (const [w, h] of [
      [390, 844],
      [1280, 800],
    ]) {
      const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, locale: 'ko-KR' });
      await addSessionToBrowser(context, base, owner);
      const page = await context.newPage();
      await page.goto(`${base}/dashboard/developers/mailbox`);
      const row = page.locator('[data-testid=mails] tbody tr').first();
      assert.match((await row.textContent()) ?? '', /주문이 완료되었습니다.*buyer@example\.com.*주문 확인/s);
      await page.screenshot({ path: `/tmp/mail-mailbox-${w}.png`, fullPage: true });
      await row.locator('a').click();
      await page.waitForSelector('[data-testid=mail-html]');
      const frame = page.frameLocator('[data-testid=mail-html]');
      const shown = (await frame.locator('body').textContent()) ?? '';
      assert.ok(shown.includes(key), 'the licence key is in the rendered HTML');
      assert.ok(shown.includes('39,000원'));
      assert.ok(shown.includes('사업자등록번호'));
      assert.ok(((await page.locator('[data-testid=mail-text]').textContent()) ?? '').includes(key), 'and in the text part');
      assert.equal(await page.locator('[data-testid=mail-html]').getAttribute('sandbox'), '', 'no scripts, no same origin');
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      assert.ok(fits, `fits ${w} px without horizontal scroll`);
      await page.screenshot({ path: `/tmp/mail-detail-${w}.png`, fullPage: true });
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
