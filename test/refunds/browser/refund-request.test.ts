import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { createProduct, createSession, owner, submitPayForm } from '../../checkout/factory';
import { startReceiver } from '../../webhooks/receiver';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots';

test('a buyer files a refund request from the receipt link in Chromium; the seller approves over the API; the page shows the refund and order.refunded arrives signed', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });

  const t = await createTestApp();
  let secret = '';
  const rx = await startReceiver({ secrets: () => [secret] });
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const ep = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/webhook-endpoints',
      headers: owner(s),
      payload: { mode: 'test', url: rx.url('/hooks'), eventTypes: ['order.paid', 'order.refunded', 'refund_request.created', 'refund_request.updated'] },
    });
    assert.equal(ep.statusCode, 201, ep.body);
    secret = ep.json().secret;

    const product = await createProduct(t, s, { name: '타입스크립트 실전 가이드 (전자책)', price: 15_000 });
    const buy = async () => {
      const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/thanks' });
      const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
      assert.equal(paid.statusCode, 303, paid.body);
      const orderId = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
      return (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    };
    const order = await buy();
    assert.ok(order.receiptUrl.startsWith(`${address}/receipt/${order.id}?t=`));

    // The seller hands the receiptUrl of order.paid to the buyer (e.g. in their own e-mail).
    await t.deps.worker.runOnce();
    const paidEvent = rx.received.find((r) => r.payload?.type === 'order.paid' && r.payload.data.id === order.id);
    assert.ok(paidEvent, 'order.paid delivered');
    assert.deepEqual(paidEvent.verifiedWith, [secret]);
    assert.equal(paidEvent.payload.data.receiptUrl, order.receiptUrl);

    browser = await launchChromium(chromium);
    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const page = await mobile.newPage();
    const opened = await page.goto(paidEvent.payload.data.receiptUrl);
    assert.equal(opened?.status(), 200);
    assert.equal(await page.textContent('#order-status'), '결제 완료');
    assert.equal(await page.inputValue('#amount'), '15,000', 'defaults to everything refundable, with separators');
    await page.fill('#reason', '구매한 책이 이미 있어서 환불 부탁드립니다.');
    await page.screenshot({ path: `${SHOTS}/refund-receipt-form-390x844.png`, fullPage: true });
    await Promise.all([page.waitForURL(/done=filed/), page.click('#refund-form button[type=submit]')]);
    assert.match((await page.textContent('#banner')) ?? '', /환불 요청이 접수되었습니다/);
    assert.match((await page.textContent('#request-status')) ?? '', /접수됨/);
    await page.screenshot({ path: `${SHOTS}/refund-receipt-requested-390x844.png`, fullPage: true });

    // The seller sees the request over the API and approves it.
    const list = (await t.app.inject({ url: `/v1/refund-requests?orderId=${order.id}`, headers: bearer(s.key) })).json();
    assert.equal(list.total, 1);
    const rr = list.data[0];
    assert.equal(rr.status, 'requested');
    assert.equal(rr.amount, 15_000);
    assert.equal(rr.reason, '구매한 책이 이미 있어서 환불 부탁드립니다.');
    assert.equal(rr.statutory, true);
    const approved = await t.app.inject({ method: 'POST', url: `/v1/refund-requests/${rr.id}/approve`, headers: post(s.key), payload: { reason: '요청하신 환불을 처리했습니다.' } });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(approved.json().refundRequest.status, 'approved');

    // The buyer's page shows the refund.
    await page.reload();
    assert.equal(await page.textContent('#order-status'), '전액 환불');
    assert.match((await page.textContent('#refunds')) ?? '', /15,000원/);
    assert.match((await page.textContent('#request-history')) ?? '', /승인됨/);
    await page.screenshot({ path: `${SHOTS}/refund-receipt-refunded-390x844.png`, fullPage: true });

    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'ko-KR' });
    const dpage = await desktop.newPage();
    await dpage.goto(order.receiptUrl);
    assert.equal(await dpage.textContent('#order-status'), '전액 환불');
    await dpage.screenshot({ path: `${SHOTS}/refund-receipt-refunded-1280x800.png`, fullPage: true });
    const second = await buy();
    await dpage.goto(second.receiptUrl);
    await dpage.fill('#amount', '5,000');
    await dpage.screenshot({ path: `${SHOTS}/refund-receipt-form-1280x800.png`, fullPage: true });
    await Promise.all([dpage.waitForURL(/done=filed/), dpage.click('#refund-form button[type=submit]')]);
    await dpage.screenshot({ path: `${SHOTS}/refund-receipt-requested-1280x800.png`, fullPage: true });
    // and withdraws it again
    await Promise.all([dpage.waitForURL(/done=canceled/), dpage.click('#refund-request button[type=submit]')]);
    assert.match((await dpage.textContent('#banner')) ?? '', /환불 요청을 취소했습니다/);
    const secondRequests = (await t.app.inject({ url: `/v1/refund-requests?orderId=${second.id}`, headers: bearer(s.key) })).json();
    assert.deepEqual(secondRequests.data.map((r: any) => [r.amount, r.status]), [[5_000, 'canceled']]);

    // order.refunded (and the request events) arrive, verified with the standardwebhooks library.
    await t.deps.worker.runOnce();
    const refunded = rx.received.filter((r) => r.payload?.type === 'order.refunded' && r.payload.data.order.id === order.id);
    assert.equal(refunded.length, 1);
    assert.deepEqual(refunded[0].verifiedWith, [secret]);
    assert.equal(refunded[0].payload.data.refund.amount, 15_000);
    assert.equal(refunded[0].payload.data.order.status, 'refunded');
    const requestEvents = rx.received.filter((r) => r.payload?.type?.startsWith('refund_request.') && r.payload.data.id === rr.id);
    assert.deepEqual(requestEvents.map((r) => [r.payload.type, r.payload.data.status]).sort(), [['refund_request.created', 'requested'], ['refund_request.updated', 'approved']]);
    assert.ok(requestEvents.every((r) => r.verifiedWith.includes(secret)));
  } finally {
    await browser?.close();
    await rx.close?.();
    await t.close();
  }
});
