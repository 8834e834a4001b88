import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession, createSubscriptionProduct } from '../../checkout/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * @slow In Chromium at 390 px and 1280 px (test mode): the 현금영수증 의무발행 notice appears only once a bank method is
 * chosen on a 120,000원 payment; a subscription page offers the card alone; a 가상계좌 issued with a successUrl shows
 * the account page (copy button, amount, deadline, a link onward) instead of leaving for the seller's page; and the
 * receipt's refund request of the deposited order asks for the refund account. axe-core finds no violation on any of
 * these pages; nothing scrolls sideways. Screenshots: /tmp/shots/i38c/<step>-<width>.png.
 */
const SHOTS = '/tmp/shots/i38c';

test('가상계좌 issuance page, 의무발행 notice, subscription methods and the refund account on the request, in Chromium at 390 px and 1280 px with axe', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    await t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: { ...bearer(s.ownerToken), 'content-type': 'application/json' }, payload: { cashReceiptMandatory: true } });
    const product = await createProduct(t, s, { name: '사진 보정 데스크톱 앱 Pro 평생 라이선스', price: 120_000, stock: 10 });
    const membership = await createSubscriptionProduct(t, s);
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: address });
      const page = await ctx.newPage();
      const check = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${step} ${width}: axe`);
        await page.screenshot({ path: `${SHOTS}/${step}-${width}.png`, fullPage: true });
      };

      // A subscription's page: the card alone (the method its renewals charge).
      const subSession = await createSession(t, s.key, { productId: membership.id, planId: 'basic', interval: 'monthly' });
      await page.goto(subSession.url);
      assert.deepEqual(await page.$$eval('input[name=method]', (els) => els.map((e) => (e as HTMLInputElement).value)), ['card']);
      await check('subscription-methods');

      // 120,000원 on a 의무발행 store: the notice shows with a bank method only.
      const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/thanks' });
      await page.goto(session.url);
      await page.check('input[name=method][value=card]');
      assert.equal(await page.isVisible('#cash-receipt-mandatory'), false, 'not for a card');
      await page.fill('#buyerName', '김구매');
      await page.fill('#buyerEmail', 'buyer@example.com');
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.check('input[name=method][value=virtual_account]');
      assert.ok(await page.isVisible('#cash-receipt-mandatory'), 'told before paying');
      assert.match((await page.textContent('#cash-receipt-mandatory'))!, /010-000-1234/);
      await page.check('input[name=agreeAll]');
      await check('pay-mandatory-notice');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      await Promise.all([page.waitForNavigation(), page.click('button[value=approve]')]);

      // The issuance page, not the seller's: the account with its copy button, amount and deadline, then onward.
      assert.equal(new URL(page.url()).host, new URL(address).host, 'still on our page');
      assert.equal((await page.textContent('h1'))?.trim(), '가상계좌가 발급되었습니다');
      const orderId = (await t.db.selectFrom('checkout_sessions').select('order_id').where('id', '=', session.id).executeTakeFirstOrThrow()).order_id!;
      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
      assert.equal((await page.textContent('#va-account'))?.trim(), order.virtualAccount.accountNumber);
      assert.equal((await page.textContent('#va-amount'))?.trim(), '120,000원');
      assert.match((await page.textContent('#va-due'))!, /년 .*월 .*일 오[전후] \d{1,2}:\d{2} \(한국 시간\)/);
      const copy = page.locator('button[data-copy=va-account]');
      assert.ok(await copy.isVisible(), 'the script shows the copy button');
      await copy.click();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), order.virtualAccount.accountNumber);
      assert.match((await page.getAttribute('#va-onward', 'href'))!, /^https:\/\/example\.com\/thanks\?order_id=ord_/);
      await check('va-issued');

      // Deposit, then the refund request asks for the account it will be paid to.
      await page.click('#va-receipt');
      await page.click('#test-deposit');
      await page.waitForSelector('#refund-form');
      assert.ok(await page.isVisible('#request-account'));
      await page.selectOption('#rr-bankCode', '88');
      await page.fill('#rr-accountNumber', '110-123-456789');
      await page.fill('#rr-holderName', '김구매');
      await check('receipt-request-account');
      await Promise.all([page.waitForNavigation(), page.click('#refund-form button.pay')]);
      assert.ok(await page.isVisible('#auto-approval'), 'a statutory request with its auto-approval, which can now be paid');
      assert.match((await page.textContent('#refund-account-state'))!, /신한 \*\*\*\*6789 \(김구매\)/);
      await check('receipt-request-filed');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
