import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowLoopbackPort, bearer, createTestApp, createTestStore } from '../../helpers/app';
import { createProduct, createSession, submitPayForm } from '../../checkout/factory';
import { addSessionToBrowser, signIn } from '../helpers';
import { TEST_CARDS } from '../../../src/payments';
import { dispatchEventsOnce } from '../../../src/webhooks/delivery';
import { runMailOnce } from '../../../src/mail/dispatch';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

// The seller's pages this issue changed, in Chromium at 390 px and 1280 px (screenshots /tmp/polish-*.png): the order
// page right after a refund made on it, the orders filter, the mailbox and its "send to me", and the mail settings.

test('order page after a dashboard refund shows its webhook deliveries without a reload; phone, filter label, mailbox and mail settings at 390 px and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookPort = (receiver.address() as AddressInfo).port;
  allowLoopbackPort(hookPort);
  const t = await createTestApp({ config: { smtpUrl: 'smtp://127.0.0.1:1', mailFrom: 'no-reply@example.com' } });
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const s = await createTestStore(t);
    const hook = await t.app.inject({ method: 'POST', url: '/admin/v1/webhook-endpoints', headers: bearer(s.ownerToken), payload: { mode: 'test', url: `http://127.0.0.1:${hookPort}/hook`, eventTypes: ['order.refunded'] } });
    assert.equal(hook.statusCode, 201, hook.body);
    const product = await createProduct(t, s, { name: '사진 편집 앱', price: 39_000 });
    const orders: string[] = [];
    for (let i = 0; i < 2; i++) {
      const session = await createSession(t, s.key, { productId: product.id, successUrl: 'http://localhost/ok' });
      const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success, buyerPhone: '01012345678' });
      orders.push(new URL(String(paid.headers.location)).searchParams.get('order_id')!);
    }
    await runMailOnce(t.deps, t.clock.now());
    const owner = await signIn(t, { store: s, email: 'owner@seller.example' });
    browser = await launchChromium(chromium);

    for (const [w, h] of [
      [390, 844],
      [1280, 800],
    ] as const) {
      const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, locale: 'ko-KR' });
      await addSessionToBrowser(context, base, owner);
      const page = await context.newPage();
      const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

      // The order page: refund on it; the refund's event is queued, then delivered, and the page shows it by itself.
      const orderId = orders[w === 390 ? 0 : 1]!;
      await page.goto(`${base}/dashboard/orders/${orderId}`);
      assert.match((await page.locator('main').textContent()) ?? '', /010-1234-5678/, 'the phone as people write it');
      await page.locator('[data-testid=refund-form] button[name=whole]').click();
      await page.waitForSelector('[data-testid=refund-confirm]');
      await Promise.all([page.waitForURL(/done=refunded/), page.locator('[data-testid=refund-confirm] button[type=submit]').click()]);
      const refunded = page.locator('[data-testid=order-events] tr', { hasText: 'order.refunded' });
      assert.match((await refunded.textContent()) ?? '', /전송 준비 중/, 'queued, not "no subscribed endpoint"');
      assert.doesNotMatch((await refunded.textContent()) ?? '', /구독한 엔드포인트 없음/);
      await dispatchEventsOnce(t.deps, t.clock.now());
      // No reload: the section asks again by itself while something is queued.
      await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid=order-events] tr')).some((tr) => /order\.refunded/.test(tr.textContent ?? '') && /127\.0\.0\.1:\d+\/hook/.test(tr.textContent ?? '')), null, { timeout: 15_000 });
      assert.ok(await fits(), `order page fits ${w} px`);
      await page.screenshot({ path: `/tmp/polish-order-${w}.png`, fullPage: true });

      // The orders filter: its long label keeps Korean words whole.
      await page.goto(`${base}/dashboard/orders`);
      const label = page.locator('label[for=f-q]');
      assert.equal(await label.evaluate((el) => getComputedStyle(el).wordBreak), 'keep-all');
      const words = await label.evaluate((el) => {
        // Each word's characters sit on one line: no word's first and last letters are on different lines.
        const text = el.firstChild as Text;
        const out: boolean[] = [];
        const re = /\S+/g;
        for (let m; (m = re.exec(text.data)); ) {
          const r = document.createRange();
          r.setStart(text, m.index);
          r.setEnd(text, m.index + 1);
          const first = r.getBoundingClientRect().top;
          r.setStart(text, m.index + m[0].length - 1);
          r.setEnd(text, m.index + m[0].length);
          out.push(Math.abs(r.getBoundingClientRect().top - first) < 2);
        }
        return out;
      });
      assert.ok(words.length > 3 && words.every(Boolean), `no word of the filter label breaks across lines at ${w} px`);
      await page.screenshot({ path: `/tmp/polish-orders-${w}.png` });

      // The mailbox: a stacked list on a phone (nothing wider than the screen), the mail with its "send to me".
      // The refund just made queued its mail; the mail worker renders it (as it would within seconds) so the newest row,
      // opened below, has its body to send.
      await runMailOnce(t.deps, t.clock.now());
      await page.goto(`${base}/dashboard/developers/mailbox`);
      const wrap = page.locator('.table-wrap').first();
      assert.ok(await wrap.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), `the mailbox list needs no sideways scroll at ${w} px`);
      assert.match((await page.locator('[data-testid=mails] tbody tr').first().textContent()) ?? '', /KST/);
      assert.ok(await fits());
      await page.screenshot({ path: `/tmp/polish-mailbox-${w}.png`, fullPage: true });
      await page.locator('[data-testid=mails] tbody tr a').first().click();
      await page.waitForSelector('[data-testid=send-to-me]');
      assert.ok(await fits());
      await page.screenshot({ path: `/tmp/polish-mail-${w}.png` });

      // The mail settings: the members to tick for test copies.
      await page.goto(`${base}/dashboard/settings/mails`);
      assert.match((await page.locator('[data-testid=test-copies]').textContent()) ?? '', /owner@seller\.example/);
      assert.ok(await fits());
      await page.screenshot({ path: `/tmp/polish-mail-settings-${w}.png`, fullPage: true });
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
    receiver.close();
  }
});
