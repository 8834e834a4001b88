import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestStore } from '../../helpers/app';
import { createSubscriptionProduct, createSession } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';
import { runMailOnce } from '../../../src/mail/dispatch';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/i38a';

/**
 * The buyer's own door in Chromium (issue 38): a buyer pays for a subscription on the hosted page, opens the receipt,
 * follows its link to the store's buyer page, asks for a sign-in link, reads it in the test mailbox, signs in, sees
 * the order, licence key and subscription, and cancels it through 구독 관리. Every new page is shot at 390 px and
 * 1280 px (/tmp/shots/i38a) and axe-core finds no violation on it.
 */
test('a subscriber reaches their order, key and subscription from the receipt, signs in by the mailed link and cancels through 구독 관리 (390 and 1280 px, axe)', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const t = await createTestApp();
  const shop = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><meta charset="utf-8"><title>감사합니다</title><h1>감사합니다</h1>');
  });
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    const shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    const s = await createTestStore(t);
    const product = await createSubscriptionProduct(t, s, { name: '프로 멤버십', license: { mode: 'service' } });
    const session = await createSession(t, s.key, { productId: product.id, planId: 'basic', interval: 'monthly', customer: { name: '김구독', email: 'subscriber@example.com' }, successUrl: `${shopUrl}/thanks` });

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'ko-KR' });
    const page = await context.newPage();
    const shoot = async (name: string) => {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${name} ${width}: nothing overflows sideways (${overflow}px)`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${name} ${width}: axe finds no violation`);
      }
      await page.setViewportSize({ width: 390, height: 844 });
    };

    // Pays on the hosted page with the simulator's test card.
    assert.equal((await page.goto(session.url))?.status(), 200);
    await page.fill('#buyerPhone', '010-1234-5678');
    await page.check('input[name="method"][value="card"]');
    await page.fill('#cardNumber', TEST_CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
    await page.check('#agreeAll');
    await page.check('#agreeRecurring');
    await Promise.all([page.waitForURL(`${shopUrl}/thanks?**`), page.click('button.pay')]);
    const orderId = new URL(page.url()).searchParams.get('order_id')!;
    await t.deps.worker.runOnce();
    const order = await t.db.selectFrom('orders').select(['receipt_token', 'subscription_id']).where('id', '=', orderId).executeTakeFirstOrThrow();

    // The receipt (its link came in the started mail) → 내 구매내역.
    assert.equal((await page.goto(`${address}/receipt/${orderId}?t=${order.receipt_token}`))?.status(), 200);
    await Promise.all([page.waitForURL(`**/s/${s.storeId}/test/orders`), page.click('#buyer-page-link')]);
    assert.match(await page.locator('h1').innerText(), /내 구매내역/);
    await shoot('sign-in');

    await page.fill('#email', 'Subscriber@example.com');
    await page.click('button.pay');
    // The next page's heading, waited for (the current page is already loaded, so waiting for 'load' could read this one's).
    await page.locator('h1', { hasText: '메일을 확인해 주세요' }).waitFor();
    assert.match(await page.locator('h1').innerText(), /메일을 확인해 주세요/);
    await shoot('sent');

    // The test mailbox keeps the mail (test mode sends none).
    await runMailOnce(t.deps, t.clock.now());
    const mail = await t.db.selectFrom('mail_outbox').select('text_body').where('kind', '=', 'buyer_sign_in').executeTakeFirstOrThrow();
    const link = /https?:\/\/\S+\/sign-in\/\S+/.exec(mail.text_body ?? '')![0];
    assert.equal((await page.goto(link))?.status(), 200);
    await shoot('confirm');
    await Promise.all([page.waitForURL(`**/s/${s.storeId}/test/orders`), page.click('button.pay')]);
    assert.match(await page.locator('.who').innerText(), /subscriber@example\.com\(으\)로 로그인됨/);
    assert.ok(await page.locator(`[data-order-id="${orderId}"]`).isVisible(), 'the order');
    assert.match(await page.locator('code.license-key').first().innerText(), /^[A-Z0-9-]{10,}$/, 'the licence key');
    assert.ok(await page.locator('button[data-copy]').first().isVisible(), 'the copy button (the script reveals it)');
    assert.ok(await page.locator(`[data-subscription-id="${order.subscription_id}"]`).isVisible(), 'the subscription');
    await shoot('overview');

    // 구독 관리 → the portal of that subscription → cancel at period end.
    await Promise.all([page.waitForURL('**/portal/**'), page.click('button.manage')]);
    await page.click('button[data-action="period_end"]');
    await page.waitForLoadState('load');
    assert.match(await page.content(), /해지가 예약되었습니다/);
    const row = await t.db.selectFrom('subscriptions').select('cancel_at_period_end').where('id', '=', order.subscription_id!).executeTakeFirstOrThrow();
    assert.equal(row.cancel_at_period_end, true);

    // The used link again: refused with a page that says what to do.
    const reused = await page.goto(link);
    assert.equal(reused?.status(), 200, 'opening the link uses nothing up');
    await page.click('button.pay');
    await page.waitForLoadState('load');
    assert.match(await page.locator('h1').innerText(), /로그인 링크를 쓸 수 없습니다/);
    await shoot('link-gone');

    // An altered 구독 관리 link of a mail.
    assert.equal((await page.goto(`${address}/manage/${order.subscription_id}.9999999999.${'A'.repeat(43)}`))?.status(), 410);
    await shoot('manage-gone');

    // English.
    await page.goto(`${address}/s/${s.storeId}/test/orders?lang=en`);
    assert.match(await page.locator('h1').innerText(), /My orders/);
    await shoot('overview-en');
    await page.click('button.danger');
    await page.waitForLoadState('load');
    assert.match(await page.locator('.banner').innerText(), /You signed out/);
  } finally {
    await browser?.close();
    shop.close();
    await t.close();
  }
});
