import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore } from '../../helpers/app';
import { createSession, createSubscriptionProduct } from '../../checkout/factory';
import { updateModeSettings } from '../../../src/stores/service';
import { chromiumOrSkip, launchChromium, routePortOneCdn, type Browser } from '../../helpers/browser';
import { startFakePortOne } from '../../payments/fake-portone';

/**
 * @slow A subscription on a store on PortOne, in Chromium at 390 px and 1280 px, through the service's own pages: the
 * buyer fills the payment form, the launch page opens PortOne's card registration window (the fake's stand-in for
 * PortOne's browser SDK, served at PortOne's CDN address so the page's CSP is the production one) with the card
 * channel and the subscription's customer id; the window finished, the return reads the key back and charges the first
 * payment. axe: no violation, no sideways scroll. Screenshots: /tmp/shots/i42bill/<step>-<width>.png.
 */
const SHOTS = '/tmp/shots/i42bill';
const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';

test('PortOne subscription: the card registration window opens from the pay page, and its return charges the first payment once; 390 px and 1280 px with axe', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneWebhookSecret: fake.webhookSecret, portoneChannelKeys: { card: CARD_CHANNEL } });
    const product = await createSubscriptionProduct(t, s, { name: '프로 멤버십' });
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const session = await createSession(t, s.key, { productId: product.id, planId: 'basic', interval: 'monthly', customer: { name: '김구매', email: 'buyer@example.com', phone: '010-1234-5678' } });
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      // PortOne's CDN is out of reach here: its address serves the fake's stand-in, whose window calls go to the fake.
      await routePortOneCdn(ctx, fake);
      const page = await ctx.newPage();
      const check = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${step} ${width}: axe`);
        await page.screenshot({ path: `${SHOTS}/${step}-${width}.png`, fullPage: true });
      };

      assert.equal((await page.goto(session.url))?.status(), 200);
      await page.check('#agreeAll');
      await page.check('#agreeRecurring');
      const [launched] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), page.click('#pay-button')]);
      assert.equal(launched.status(), 200);
      await page.waitForFunction(() => typeof (window as unknown as { __portoneFinish?: unknown }).__portoneFinish === 'function');
      const request = await page.evaluate(() => (window as unknown as { __portoneRequests: Array<Record<string, any>> }).__portoneRequests[0]);
      const subscriptionId = `sub_${session.id.slice(3)}`;
      assert.equal(request.storeId, fake.storeId);
      assert.equal(request.channelKey, CARD_CHANNEL);
      assert.equal(request.billingKeyMethod, 'CARD');
      assert.equal(request.customer.customerId, subscriptionId);
      assert.equal(request.redirectUrl, `${address}/pay/${session.id}/portone/billing-return`);
      assert.ok(await page.isDisabled('#portone-open'), 'no second window while one is open');
      assert.match((await page.textContent('h1')) ?? '', /결제 카드를 등록해 주세요/);
      await check('portone-billing-window-open');

      // The buyer closes the window: PortOne's message, and the button opens it again.
      await page.evaluate(() => (window as unknown as { __portoneFinish: (close?: boolean) => Promise<unknown> }).__portoneFinish(true));
      await page.waitForFunction(() => document.getElementById('portone-error')!.textContent !== '');
      assert.equal(await page.textContent('#portone-error'), '사용자가 카드 등록을 취소했습니다.');
      assert.ok(await page.isEnabled('#portone-open'));
      await check('portone-billing-window-closed');

      await page.click('#portone-open');
      await page.waitForFunction(() => (window as unknown as { __portoneRequests: unknown[] }).__portoneRequests.length === 2);
      await Promise.all([page.waitForURL(/\/portone\/billing-return/), page.evaluate(() => {
        // Not awaited in the page: the answer's redirect can replace this document before the evaluation's result
        // comes back ("Execution context was destroyed" on a loaded machine).
        void (window as unknown as { __portoneFinish: () => Promise<unknown> }).__portoneFinish();
      })]);
      await page.waitForLoadState('load');
      await check('portone-billing-paid');
      const order = await t.db.selectFrom('orders').selectAll().where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow();
      assert.equal(order.status, 'paid');
      assert.equal(order.provider, 'portone');
      assert.equal(fake.calls.filter((c) => c.op === 'billing_charge' && c.path.startsWith(`/payments/${order.id}/`)).length, 1, 'charged once');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
    await fake.close();
  }
});
