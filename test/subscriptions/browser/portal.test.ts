import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { createSubscriptionProduct, createSession } from '../../checkout/factory';
import { createEndpoint, pump } from '../../webhooks/setup';
import { startReceiver } from '../../webhooks/receiver';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots';

test('a buyer subscribes with a test card, opens the portal, sees both cancel options with amounts, cancels now and lands on returnUrl; subscription.ended arrives verified', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });

  const t = await createTestApp();
  const shopHits: string[] = [];
  const shop = createServer((req, res) => {
    shopHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><meta charset="utf-8"><h1>내 계정</h1>');
  });
  const receiver = await startReceiver();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;

    const s = await createTestStore(t);
    const { secret } = await createEndpoint(t, s, { url: receiver.url('/hooks'), eventTypes: ['subscription.ended'] });
    receiver.state.secrets = () => [secret];
    const product = await createSubscriptionProduct(t, s, { name: '프로 멤버십' });
    const session = await createSession(t, s.key, {
      productId: product.id,
      planId: 'basic',
      interval: 'monthly',
      customer: { name: '김구독', email: 'subscriber@example.com' },
      successUrl: `${shopUrl}/thanks`,
    });

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const page = await context.newPage();
    assert.equal((await page.goto(session.url))?.status(), 200);
    await page.fill('#buyerPhone', '010-1234-5678');
    await page.check('input[name="method"][value="card"]');
    await page.fill('#cardNumber', TEST_CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
    await page.check('#agreeAll');
    await page.check('#agreeRecurring'); // the separate recurring-charge consent
    await Promise.all([page.waitForURL(`${shopUrl}/thanks?**`), page.click('button.pay')]);
    const orderId = new URL(page.url()).searchParams.get('order_id')!;
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    const subscriptionId = (await t.db.selectFrom('orders').select('subscription_id').where('id', '=', orderId).executeTakeFirstOrThrow()).subscription_id!;
    assert.equal(order.amount, 9_900);

    // Day 3: the seller's server opens a portal session for the buyer.
    t.clock.advance(2 * 86_400_000);
    const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId, returnUrl: `${shopUrl}/account` } });
    assert.equal(created.statusCode, 200, created.body);
    const portalUrl = created.json().url as string;
    assert.ok(portalUrl.startsWith(address));

    assert.equal((await page.goto(portalUrl))?.status(), 200);
    const later = page.locator('button[data-action="period_end"]');
    const now = page.locator('button[data-action="immediate"]');
    assert.ok(await later.isVisible());
    assert.ok(await now.isVisible());
    assert.match(await page.locator('[data-refund-amount]').innerText(), /환불 예정 9,900원/);
    assert.match(await page.content(), /기간 종료 시 해지/);
    // Side by side on a phone too: neither choice is hidden below the other.
    const [m1, m2] = [await page.locator('form.choice').nth(0).boundingBox(), await page.locator('form.choice').nth(1).boundingBox()];
    assert.ok(m1 && m2 && Math.abs(m1.y - m2.y) < 2 && m1.x < m2.x, 'choices side by side on mobile');
    await page.screenshot({ path: `${SHOTS}/portal-390x844.png`, fullPage: true });
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'ko-KR' });
    await desktop.goto(portalUrl);
    // Side by side on a wide screen: the two choices share a row.
    const [a, b] = [await desktop.locator('form.choice').nth(0).boundingBox(), await desktop.locator('form.choice').nth(1).boundingBox()];
    assert.ok(a && b && Math.abs(a.y - b.y) < 2 && a.x < b.x, 'choices side by side');
    await desktop.screenshot({ path: `${SHOTS}/portal-1280x800.png`, fullPage: true });
    await desktop.close();

    await Promise.all([page.waitForURL(`${portalUrl}/subscriptions/**`), now.click()]);
    assert.match(await page.content(), /9,900원이 환불되었습니다/);
    await page.screenshot({ path: `${SHOTS}/portal-canceled-390x844.png`, fullPage: true });
    await Promise.all([page.waitForURL(`${shopUrl}/account`), page.click('a[data-action="return"]')]);
    assert.ok(shopHits.includes('/account'));

    const sub = (await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(s.key) })).json();
    assert.equal(sub.status, 'ended');
    assert.equal(sub.endReason, 'canceled');
    const refunded = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    assert.equal(refunded.refundedAmount, 9_900);

    await pump(t);
    const ended = receiver.received.filter((r) => r.payload?.type === 'subscription.ended');
    assert.equal(ended.length, 1);
    assert.deepEqual(ended[0].verifiedWith, [secret], 'verified with standardwebhooks');
    assert.equal(ended[0].payload.data.id, subscriptionId);
    assert.equal(ended[0].payload.data.endReason, 'canceled');
  } finally {
    await browser?.close();
    await new Promise((r) => shop.close(r));
    await receiver.close();
    await t.close();
  }
});
