import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession, submitPayForm } from '../../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../../subscriptions/factory';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * The receipt's statements (receipt-legal.ts) in Chromium at a phone's 390 px and a desktop's 1280 px, Korean and
 * English, for a one-time, a restricted (trial + marked) and a subscription order: every statement is visible, nothing
 * overflows sideways, axe-core finds nothing serious or critical, and the language link switches. Screenshots: /tmp/receipt-<kind>-<lang>-<width>.png.
 */
test('the receipt statements render in Chromium at 390 px and 1280 px, in Korean and English, without sideways overflow or serious axe findings', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    t.clock.set('2026-11-02T01:00:00.000Z'); // Monday 10:00 KST
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const orderOf = async (orderId: string) => (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    const buy = async (productId: string) => {
      const session = await createSession(t, s.key, { productId, successUrl: 'https://example.com/thanks' });
      const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
      assert.equal(paid.statusCode, 303, paid.body);
      return orderOf(new URL(String(paid.headers.location)).searchParams.get('order_id')!);
    };
    const ebook = await createProduct(t, s, { name: '타입스크립트 실전 가이드 (전자책)', price: 15_000 });
    const app = await createProduct(t, s, {
      name: '사진 보정 데스크톱 앱 Pro (1년 라이선스)',
      price: 59_000,
      license: { mode: 'service', maxActivations: 3, validityDays: 365 },
      refundPolicy: { refundDays: 14, trialOffered: true, usageRestrictionMarked: true },
    });
    const membership = await createSubscriptionProduct(t, s, { name: '클라우드 백업 멤버십', refundPolicy: { refundDays: 7, penaltyRate: 10, clawbackDisclosed: true } });
    const sub = await subscribe(t, s, { productId: membership.id, interval: 'yearly' });
    const orders = { 'one-time': await buy(ebook.id), restricted: await buy(app.id), subscription: await orderOf(sub.orderId) };

    browser = await launchChromium(chromium);
    const common = ['withdrawal-window', 'withdrawal-effect', 'late-interest', 'seller-contact', 'dispute-bodies'];
    const extra: Record<keyof typeof orders, string[]> = { 'one-time': [], restricted: ['restriction-why', 'restriction-state', 'licenses'], subscription: ['next-charge-date', 'next-charge-amount', 'how-to-cancel', 'clawback'] };
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      const page = await ctx.newPage();
      for (const [kind, order] of Object.entries(orders) as Array<[keyof typeof orders, any]>) {
        for (const lang of ['ko', 'en'] as const) {
          // Each language asked for in the address: a ?lang visit is remembered (cookie), so the plain URL would follow it.
          const res = await page.goto(`${order.receiptUrl}&lang=${lang}`);
          assert.equal(res?.status(), 200);
          assert.equal(await page.getAttribute('html', 'lang'), lang);
          for (const id of [...common, ...extra[kind]]) assert.ok(await page.isVisible(`#${id}`), `${kind} ${lang} ${width}: #${id} visible`);
          const overflow = await page.evaluate(() => {
            const doc = document.documentElement;
            const wide = Array.from(document.querySelectorAll('body *')).filter((e) => e.getBoundingClientRect().right > doc.clientWidth + 1).map((e) => `${e.tagName}#${e.id}.${e.className}`);
            return { scroll: doc.scrollWidth, client: doc.clientWidth, wide: wide.slice(0, 5) };
          });
          assert.ok(overflow.scroll <= overflow.client, `${kind} ${lang} ${width}: no sideways scroll (${JSON.stringify(overflow)})`);
          assert.deepEqual(overflow.wide, [], `${kind} ${lang} ${width}: nothing sticks out`);
          await page.screenshot({ path: `/tmp/receipt-${kind}-${lang}-${width}.png`, fullPage: true });
          const axe = await new AxeBuilder({ page }).analyze();
          const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
          assert.deepEqual(bad, [], `${kind} ${lang} ${width}: axe finds nothing serious`);
        }
      }
      // The language link goes to the other language and back, on the same receipt.
      await page.goto(`${orders['one-time'].receiptUrl}&lang=ko`);
      await Promise.all([page.waitForURL(/lang=en/), page.click('#lang-switch')]);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.match((await page.textContent('#late-interest')) ?? '', /15% a year/);
      await Promise.all([page.waitForURL(/lang=ko/), page.click('#lang-switch')]);
      assert.match((await page.textContent('#late-interest')) ?? '', /연 15%/);
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
