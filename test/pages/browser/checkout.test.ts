import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';


test('a buyer pays in a real browser: open the session url, choose card, type the test card, land on successUrl with order_id and session_id', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;

  const t = await createTestApp();
  const received: string[] = [];
  const shop = createServer((req, res) => {
    received.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><meta charset="utf-8"><h1>주문해 주셔서 감사합니다</h1>');
  });
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;

    const s = await createTestStore(t);
    const product = await createProduct(t, s, { name: '타입스크립트 실전 가이드 (전자책)', price: 15_000 });
    const session = await createSession(t, s.key, {
      productId: product.id,
      customer: { name: '김구매', email: 'buyer@example.com' },
      metadata: { cartId: 'cart_77' },
      successUrl: `${shopUrl}/thanks?from=checkout`,
      cancelUrl: `${shopUrl}/cart`,
    });
    assert.ok(session.url.startsWith(address));

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const page = await context.newPage();
    const response = await page.goto(session.url);
    assert.equal(response?.status(), 200);
    assert.equal(await page.inputValue('#buyerName'), '김구매');
    await page.fill('#buyerPhone', '010-1234-5678');
    await page.check('input[name="method"][value="card"]');
    await page.fill('#cardNumber', TEST_CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
    await page.check('#agreeAll');
    await page.screenshot({ path: '/tmp/checkout-mobile.png', fullPage: true });

    await Promise.all([page.waitForURL(`${shopUrl}/thanks?**`), page.click('button.pay')]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('from'), 'checkout');
    assert.equal(landed.searchParams.get('session_id'), session.id);
    const orderId = landed.searchParams.get('order_id');
    assert.match(orderId ?? '', /^ord_/);
    assert.equal(received.filter((u) => u.startsWith('/thanks')).length, 1, 'landed once');

    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    assert.equal(order.status, 'paid');
    assert.equal(order.amount, 15_000);
    assert.equal(order.buyerPhone, '01012345678');
    assert.deepEqual(order.metadata, { cartId: 'cart_77' });
  } finally {
    await browser?.close();
    await new Promise((r) => shop.close(r));
    await t.close();
  }
});
