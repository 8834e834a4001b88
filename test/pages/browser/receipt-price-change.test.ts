import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { owner } from '../../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../../subscriptions/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

// Issue 29 item 5: the receipt of a subscription order names the plan as sold and, once the buyer agreed to a price
// increase, the agreed price as the next charge (it said 9,900 while 12,900 was to be charged). A buyer who has not
// agreed reads that the subscription ends at that payment date unless they agree. Screenshots at 390 px and 1280 px.

const SHOTS = '/tmp/shots/i29a';

test('receipt: the sold plan, and the next charge after an agreed price increase (12,900) or without consent (ends), at 390 px and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    t.clock.set(new Date('2026-11-01T00:00:00Z'));
    const p = await createSubscriptionProduct(t, s, { name: '클라우드 백업' });
    const agrees = await subscribe(t, s, { productId: p.id, buyerEmail: 'agrees@example.com' });
    const silent = await subscribe(t, s, { productId: p.id, buyerEmail: 'silent@example.com' });
    const change = (
      await t.app.inject({ method: 'POST', url: `/admin/v1/products/${p.id}/plans/basic/price-changes`, headers: owner(s), payload: { monthlyPrice: 12_900, effectiveAt: '2026-12-01T00:00:00Z' } })
    ).json();
    const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: agrees.subscriptionId } });
    const path = new URL(portal.json().url).pathname;
    const csrf = /name="csrf" value="([A-Za-z0-9]+)"/.exec((await t.app.inject({ url: path })).body)![1];
    const ok = await t.app.inject({
      method: 'POST',
      url: `${path}/subscriptions/${agrees.subscriptionId}/price-changes/${change.id}/accept`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf }).toString(),
    });
    assert.equal(ok.statusCode, 303, ok.body);
    // The plan is renamed afterwards: the receipts keep 베이직.
    await t.app.inject({ method: 'PATCH', url: `/admin/v1/products/${p.id}`, headers: owner(s), payload: { pricing: { plans: [{ id: 'basic', name: '스탠다드', monthlyPrice: 9_900, yearlyPrice: 99_000 }] } } });

    browser = await launchChromium(chromium);
    for (const [who, orderId] of [
      ['agreed', agrees.orderId],
      ['not-agreed', silent.orderId],
    ] as const) {
      const url = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json().receiptUrl as string;
      for (const [width, height] of [
        [390, 844],
        [1280, 900],
      ]) {
        const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, locale: 'ko-KR' });
        const page = await context.newPage();
        assert.equal((await page.goto(url))?.status(), 200);
        assert.equal((await page.locator('#plan-name').innerText()).trim(), '베이직 · 매월');
        const next = (await page.locator('#next-charge-amount').innerText()).trim();
        if (who === 'agreed') assert.equal(next, '12,900원 (동의한 새 가격)');
        else {
          assert.equal(next, '9,900원');
          assert.match(await page.locator('#price-change-ends').innerText(), /새 가격에 동의하지 않으면 이날 구독이 끝나고/);
        }
        assert.equal(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth), false, 'nothing overflows');
        await page.locator('#recurring').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/receipt-price-${who}-${width}.png`, fullPage: true });
        await context.close();
      }
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
