import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { createSubscriptionProduct, createSession, payPath, submitPayForm } from '../../checkout/factory';
import { startFakeToss } from '../../payments/fake-toss';
import { updateModeSettings } from '../../../src/stores/service';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots';

/**
 * Stands in for Toss's SDK (js.tosspayments.com is out of reach here): it records what the page asked for and, when
 * the test says so, sends the browser to successUrl the way Toss's window does after the buyer registers a card.
 */
const FAKE_SDK = `window.TossPayments = function (clientKey) {
  return { payment: function (o) { return { requestBillingAuth: function (req) {
    window.__toss = { clientKey: clientKey, customerKey: o.customerKey, request: req };
    return new Promise(function () {});
  } }; } };
};
window.TossPayments.ANONYMOUS = '@@ANONYMOUS';`;

test('live portal: the buyer changes the card in Toss\'s registration window and comes back to the portal with the new card', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const fake = await startFakeToss({ kind: 'live' });
  const t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 2_000 } });
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
    const live = (await s.newKey({ mode: 'live' })).key;
    const product = await createSubscriptionProduct(t, s, { mode: 'live', name: '프로 멤버십' });
    const session = await createSession(t, live, { productId: product.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
    assert.equal((await submitPayForm(t, session)).statusCode, 200);
    const subscriptionId = `sub_${session.id.slice(3)}`;
    const paid = await t.app.inject({ url: `${payPath(session)}/toss/billing-success?customerKey=${subscriptionId}&authKey=auth_first` });
    assert.equal(paid.statusCode, 303, paid.body);
    const created = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(live), payload: { subscriptionId } });
    const portalUrl = created.json().url as string;

    browser = await launchChromium(chromium);
    for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: viewport.width < 500 ? 2 : 1, isMobile: viewport.width < 500, hasTouch: viewport.width < 500, locale: 'ko-KR' });
      await context.route('https://js.tosspayments.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: FAKE_SDK }));
      const page = await context.newPage();
      const size = `${viewport.width}x${viewport.height}`;
      assert.equal((await page.goto(portalUrl))?.status(), 200);
      assert.equal(await page.locator('input[name="cardNumber"]').count(), 0, 'a live portal never takes a card number');
      await page.click('summary:has-text("결제 카드 변경")');
      const button = page.locator('button[data-action="card"]');
      assert.ok(await button.isVisible());
      await page.screenshot({ path: `${SHOTS}/portal-live-card-${size}.png`, fullPage: true });

      await Promise.all([page.waitForURL(`${portalUrl}/card/*`), button.click()]);
      await page.waitForFunction(() => (window as any).__toss);
      const asked = await page.evaluate(() => (window as any).__toss);
      assert.equal(asked.clientKey, fake.clientKey);
      assert.equal(asked.customerKey, subscriptionId);
      assert.equal(asked.request.method, 'CARD');
      assert.ok(asked.request.successUrl.startsWith(`${page.url()}/success`));
      await page.screenshot({ path: `${SHOTS}/portal-live-card-launch-${size}.png`, fullPage: true });

      // The buyer registers a card in Toss's window; Toss sends the browser back with authKey and customerKey.
      const back = `${asked.request.successUrl}?customerKey=${encodeURIComponent(asked.customerKey)}&authKey=auth_${viewport.width}`;
      await Promise.all([page.waitForURL(`${portalUrl}?**`), page.goto(back)]);
      assert.match(await page.locator('.banner.info').innerText(), /결제 카드를 변경했습니다/);
      await page.screenshot({ path: `${SHOTS}/portal-live-card-done-${size}.png`, fullPage: true });
      // The same redirect again (back button, a copied link) changes nothing.
      await page.goto(back);
      assert.match(await page.locator('.banner.error').innerText(), /만료되었거나 이미 처리되었습니다/);
      await context.close();
    }
    const issued = fake.calls.filter((c) => c.path === '/v1/billing/authorizations/issue').map((c) => c.body.authKey);
    assert.deepEqual(issued, ['auth_first', 'auth_390', 'auth_1280']);
    const sub = (await t.app.inject({ url: `/v1/subscriptions/${subscriptionId}`, headers: bearer(live) })).json();
    assert.equal(sub.status, 'active');
  } finally {
    await browser?.close();
    await t.close();
    await fake.close();
  }
});
