import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, bearer } from '../../helpers/app';
import { createSession, createSubscriptionProduct, submitPayForm } from '../../checkout/factory';
import { subscribe } from '../../subscriptions/factory';
import { file } from '../../refunds/requests/helpers';
import { signIn, addSessionToBrowser } from '../helpers';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/dashboard-pages';

test('seller dashboard business pages in Chromium: create a product, see a hosted-page payment on Home and in Orders, refund it, approve a refund request, find both in the audit log; every page passes axe and fits 390 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    const store = owner.store;

    browser = await launchChromium(chromium);
    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'ko-KR' });
    await addSessionToBrowser(mobile, base, owner);
    await addSessionToBrowser(desktop, base, owner);
    const page = await mobile.newPage();

    // 1. Create a product in the dashboard.
    await page.goto(`${base}/dashboard/products/new?type=one_time`);
    await page.fill('#p-name', '타입스크립트 실전 가이드');
    await page.fill('#p-price', '15,000');
    await page.fill('#p-days', '14');
    await Promise.all([page.waitForURL(/done=created/), page.click('#product-form button[type=submit]')]);
    assert.match((await page.textContent('[data-testid=flash]')) ?? '', /상품을 만들었습니다/);
    const productId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);

    // 2. A buyer pays on the hosted page with the test card.
    const session = await createSession(t, store.key, { productId, customer: { name: '홍길동', email: 'gildong@example.com' } });
    const buyer = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await buyer.goto(session.url);
    await buyer.fill('#buyerPhone', '010-1234-5678');
    await buyer.check('input[name="method"][value="card"]');
    await buyer.fill('#cardNumber', '4242424242424242');
    await buyer.check('#agreeAll'); // the payment page requires the agreements (전자금융거래 약관, 개인정보) before paying
    const [answer] = await Promise.all([buyer.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), buyer.click('button.pay')]);
    assert.equal(answer.status(), 200);
    await buyer.waitForLoadState('load');
    await buyer.screenshot({ path: `${SHOTS}/hosted-page-paid-390x844.png`, fullPage: true });
    const order = (await t.app.inject({ url: '/v1/orders', headers: bearer(store.key) })).json().data[0];
    assert.equal(order.status, 'paid');
    assert.equal(order.amount, 15_000);
    await buyer.close();

    // 3. Home shows it; Orders lists it.
    await page.goto(`${base}/dashboard`);
    assert.match((await page.textContent('[data-testid=window-today]')) ?? '', /15,000원/);
    await page.goto(`${base}/dashboard/orders`);
    await page.fill('#f-q', 'gildong');
    await Promise.all([page.waitForURL(/q=gildong/), page.click('[data-testid=order-filters] button[type=submit]')]);
    assert.ok(await page.isVisible(`tr[data-order-id="${order.id}"]`));

    // 4. Refund it in full from the order page.
    await page.click(`tr[data-order-id="${order.id}"] a`);
    await page.waitForURL(new RegExp(`/dashboard/orders/${order.id}$`));
    // Nothing prefilled: the whole amount is asked for with its own button, then confirmed on the next page.
    assert.equal(await page.inputValue('#refund-amount'), '');
    await page.fill('#refund-reason', '구매자 요청으로 환불');
    await page.click('#refund-form button[name=whole]');
    await page.waitForSelector('[data-testid=refund-confirm]');
    assert.match((await page.textContent('[data-testid=confirm-amount]')) ?? '', /15,000원/);
    await Promise.all([page.waitForURL(/done=refunded/), page.click('[data-testid=refund-confirm] button[type=submit]')]);
    assert.match((await page.textContent('#order-status')) ?? '', /전액 환불/);
    assert.match((await page.textContent('#refunds')) ?? '', /15,000원/);

    // 5. A second buyer files a refund request on the receipt page; the seller approves it in the dashboard.
    t.clock.advance(60_000);
    const s2 = await createSession(t, store.key, { productId, customer: { name: '김구매', email: 'buyer2@example.com' } });
    const paid = await submitPayForm(t, s2, { cardNumber: TEST_CARDS.success });
    assert.equal(paid.statusCode, 200, 'receipt page without a success URL');
    const order2 = (await t.app.inject({ url: '/v1/orders?limit=1', headers: bearer(store.key) })).json().data[0];
    assert.notEqual(order2.id, order.id);
    const request = await file({ t, s: store }, order2, { reason: '중복 결제했어요' });
    await page.goto(`${base}/dashboard/refund-requests`);
    await Promise.all([page.waitForURL(new RegExp(`/dashboard/refund-requests/${request.id}$`)), page.click(`tr[data-request-id="${request.id}"] a`)]);
    assert.ok(await page.isVisible('[data-testid=statutory-lock]'), 'a statutory request shows its lock');
    await Promise.all([page.waitForURL(/done=approved/), page.click('#approve-form button[type=submit]')]);
    assert.match((await page.textContent('#request-status')) ?? '', /승인됨/);

    // 6. The audit log names the member for each action.
    await page.goto(`${base}/dashboard/audit`);
    const audit = (await page.textContent('[data-testid=audit-table]')) ?? '';
    for (const action of ['product.created', 'order.refunded', 'refund_request.approved']) assert.match(audit, new RegExp(`김사장[\\s\\S]*${action.replace('.', '\\.')}`), action);

    // The rest of the pages need a subscription, a license and a coupon to show.
    const subProduct = await createSubscriptionProduct(t, store);
    const sub = await subscribe(t, store, { productId: subProduct.id, buyerEmail: 'member@example.com' });
    const licProduct = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: bearer(store.ownerToken), payload: { mode: 'test', type: 'one_time', name: '데스크톱 앱', pricing: { price: 30_000 }, license: { mode: 'service', maxActivations: 2 } } });
    const s3 = await createSession(t, store.key, { productId: licProduct.json().id, customer: { name: '이라이선스', email: 'lic@example.com' } });
    await submitPayForm(t, s3, { cardNumber: TEST_CARDS.success });
    const license = (await t.app.inject({ url: '/admin/v1/licenses', headers: bearer(store.ownerToken) })).json().data[0];
    const coupon = await t.app.inject({ method: 'POST', url: '/admin/v1/coupons', headers: bearer(store.ownerToken), payload: { mode: 'test', code: 'WELCOME', name: '첫 구매 10%', discountType: 'percent', discountValue: 10 } });
    const openRequestOrder = (await t.app.inject({ url: `/v1/orders/${sub.orderId}`, headers: bearer(store.key) })).json();
    await file({ t, s: store }, openRequestOrder, { reason: '서비스가 기대와 달라요' });

    const pages: Array<[string, string]> = [
      ['orders', '/dashboard/orders'],
      ['order-detail', `/dashboard/orders/${order.id}`],
      ['refund-requests', '/dashboard/refund-requests'],
      ['refund-request-detail', `/dashboard/refund-requests/${request.id}`],
      ['subscriptions', '/dashboard/subscriptions'],
      ['subscription-detail', `/dashboard/subscriptions/${sub.subscriptionId}`],
      ['products', '/dashboard/products'],
      ['product-new-subscription', '/dashboard/products/new?type=subscription'],
      ['product-edit', `/dashboard/products/${productId}`],
      ['coupons', '/dashboard/coupons'],
      ['coupon-edit', `/dashboard/coupons/${coupon.json().id}`],
      ['licenses', '/dashboard/licenses'],
      ['license-detail', `/dashboard/licenses/${license.id}`],
      ['audit', '/dashboard/audit'],
    ];
    const wide = await desktop.newPage();
    for (const [name, path] of pages) {
      const res = await page.goto(`${base}${path}`);
      assert.equal(res?.status(), 200, path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at 390 px`);
      const axe = await new AxeBuilder({ page }).analyze();
      const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], path);
      await page.screenshot({ path: `${SHOTS}/${name}-390x844.png`, fullPage: true });
      await wide.goto(`${base}${path}`);
      await wide.screenshot({ path: `${SHOTS}/${name}-1280x800.png`, fullPage: true });
    }
    // The English switch reaches these pages too.
    await mobile.addCookies([{ name: 'lang', value: 'en', url: `${base}/dashboard` }]);
    await page.goto(`${base}/dashboard/orders/${order.id}`);
    assert.match((await page.textContent('main')) ?? '', /Events and webhook deliveries/);
    await page.screenshot({ path: `${SHOTS}/order-detail-en-390x844.png`, fullPage: true });
  } finally {
    await browser?.close();
    await t.close();
  }
});
