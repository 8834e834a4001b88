import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, post } from '../../helpers/app';
import { createProduct, createSession, createSubscriptionProduct } from '../../checkout/factory';
import { updateModeSettings } from '../../../src/stores/service';
import { chromiumOrSkip, launchChromium, routePortOneCdn, type Browser } from '../../helpers/browser';
import { startFakePortOne } from '../../payments/fake-portone';

/**
 * @slow The launch pages of a store on PortOne (the one-off payment window and a subscription's card registration
 * window) in Korean and in English, in Chromium at 390 px and 1280 px, reached through the service's own payment form:
 * the browser's language chooses (Accept-Language), the page says in that language what the window is for, its switch
 * is visible, axe finds no violation and nothing scrolls sideways. Screenshots: /tmp/shots/i42gaps/<lang>-<step>-<width>.png.
 */
const SHOTS = '/tmp/shots/i42gaps';
const CARD_CHANNEL = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';

const WORDS = {
  // A closed window: PortOne's own (Korean) message on a Korean page, the page's words on an English one.
  ko: { pay: '결제창을 여는 중입니다', billing: '결제 카드를 등록해 주세요', portal: '새 결제 카드를 등록해 주세요', portalSummary: '결제 카드 변경', to: 'en', switchTo: '/lang=en/', button: '결제창 열기', locale: 'KO_KR', payClosed: '사용자가 결제를 취소했습니다.', billingClosed: '사용자가 카드 등록을 취소했습니다.' },
  en: { pay: 'Opening the payment window', billing: 'Register your card', portal: 'Register your new card', portalSummary: 'Change card', to: 'ko', switchTo: '/lang=ko/', button: 'Open the payment window', locale: 'EN_US', payClosed: 'The payment was not completed. Please try again.', billingClosed: 'The card was not registered. Please try again.' },
} as const;

test('PortOne launch pages in Korean and English at 390 and 1280 px: the language the browser asks for, a visible switch, axe 0 violations', async (tc) => {
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
    const product = await createProduct(t, s, { price: 55_000, name: '사진 보정 앱 Pro' });
    const sub = await createSubscriptionProduct(t, s, { name: '프로 멤버십' });
    const routeCdn = (ctx: import('playwright-core').BrowserContext) => routePortOneCdn(ctx, fake);
    browser = await launchChromium(chromium);

    // A subscription taken on PortOne, for the portal's card change: its first card registered in PortOne's window.
    const first = await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly', customer: { name: '김구매', email: 'buyer@example.com', phone: '010-1234-5678' } });
    const subscriptionId = `sub_${first.id.slice(3)}`;
    {
      const ctx = await browser.newContext({ locale: 'ko-KR' });
      await routeCdn(ctx);
      const page = await ctx.newPage();
      assert.equal((await page.goto(first.url))?.status(), 200);
      await page.check('#agreeAll');
      await page.check('#agreeRecurring');
      await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), page.click('#pay-button')]);
      await page.waitForFunction(() => typeof (window as unknown as { __portoneFinish?: unknown }).__portoneFinish === 'function');
      await Promise.all([page.waitForURL(/\/portone\/billing-return/), page.evaluate(() => {
        // Not awaited in the page: the answer's redirect can replace this document before the evaluation's result comes back.
        void (window as unknown as { __portoneFinish: () => Promise<unknown> }).__portoneFinish();
      })]);
      await page.waitForLoadState('load');
      await ctx.close();
    }
    const subscription = await t.db.selectFrom('subscriptions').select(['status', 'customer_key']).where('id', '=', subscriptionId).executeTakeFirstOrThrow();
    assert.equal(subscription.status, 'active');

    for (const lang of ['ko', 'en'] as const) {
      const w = WORDS[lang];
      for (const width of [390, 1280]) {
        const locale = lang === 'ko' ? 'ko-KR' : 'en-US';
        const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale } : { viewport: { width, height: 900 }, locale });
        await routeCdn(ctx);
        const page = await ctx.newPage();
        const check = async (step: string) => {
          const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
          assert.ok(o.scroll <= o.client, `${lang} ${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
          const axe = await new AxeBuilder({ page }).analyze();
          assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${lang} ${step} ${width}: axe`);
          await page.screenshot({ path: `${SHOTS}/${lang}-${step}-${width}.png`, fullPage: true });
        };
        const launch = async (url: string, step: string, heading: string, closed: string, subscription: boolean) => {
          assert.equal((await page.goto(url))?.status(), 200);
          await page.fill('#buyerName', 'Jane Doe');
          await page.fill('#buyerEmail', `jane-${lang}-${width}-${step}@example.com`);
          await page.fill('#buyerPhone', '010-1234-5678');
          await page.check('#agreeAll');
          if (subscription) await page.check('#agreeRecurring');
          else await page.locator('input[name=method][value=card]').check();
          const [launched] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), page.click('#pay-button')]);
          assert.equal(launched.status(), 200);
          await page.waitForFunction(() => typeof (window as unknown as { __portoneFinish?: unknown }).__portoneFinish === 'function');
          assert.equal(await page.getAttribute('html', 'lang'), lang);
          const request = await page.evaluate(() => (window as unknown as { __portoneRequests: Array<Record<string, unknown>> }).__portoneRequests.at(-1)!);
          assert.equal(request.locale, w.locale, "PortOne's window in the page's language");
          assert.equal((await page.textContent('h1'))?.trim(), heading);
          assert.match((await page.getAttribute('#lang-switch', 'href')) ?? '', new RegExp(w.switchTo.slice(1, -1)));
          assert.ok(await page.isVisible('#lang-switch'), 'the switch is visible');
          await check(`${step}-window-open`);
          // The buyer closes the window: the page offers the button again, in the page's language.
          await page.evaluate(() => (window as unknown as { __portoneFinish: (close?: boolean) => Promise<unknown> }).__portoneFinish(true));
          await page.waitForFunction(() => document.getElementById('portone-error')!.textContent !== '');
          assert.equal(await page.textContent('#portone-error'), closed);
          assert.ok(await page.isEnabled('#portone-open'));
          await check(`${step}-window-closed`);
        };
        await launch((await createSession(t, s.key, { productId: product.id })).url, 'pay', w.pay, w.payClosed, false);
        assert.equal((await page.textContent('#portone-open'))?.trim(), w.button);
        await launch((await createSession(t, s.key, { productId: sub.id, planId: 'basic', interval: 'monthly' })).url, 'billing', w.billing, w.billingClosed, true);

        // The portal's card change: its launch page opens PortOne's registration window for the subscription's customer,
        // both in the page's language; the switch reopens the same registration in the other language, window and all.
        const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } });
        assert.equal(portal.statusCode, 200, portal.body);
        const portalUrl = portal.json().url as string;
        assert.equal((await page.goto(`${portalUrl}?lang=${lang}`))?.status(), 200);
        await page.click(`summary:has-text("${w.portalSummary}")`);
        await Promise.all([page.waitForURL(`${portalUrl}/card/*`), page.click('button[data-action="card"]')]);
        const opened = async (l: 'ko' | 'en') => {
          await page.waitForFunction(() => ((window as unknown as { __portoneRequests?: unknown[] }).__portoneRequests ?? []).length > 0);
          const r = await page.evaluate(() => (window as unknown as { __portoneRequests: Array<Record<string, any>> }).__portoneRequests.at(-1)!);
          assert.equal(r.locale, WORDS[l].locale, `${l} ${width}: PortOne's window in the portal page's language`);
          assert.equal(r.customer.customerId, subscription.customer_key);
          assert.equal(await page.getAttribute('html', 'lang'), l);
          assert.equal((await page.textContent('h1'))?.trim(), WORDS[l].portal);
        };
        await opened(lang);
        assert.match((await page.getAttribute('#lang-switch', 'href')) ?? '', new RegExp(w.switchTo.slice(1, -1)));
        assert.ok(await page.isVisible('#lang-switch'), 'the switch is visible');
        await check('portal-card-window-open');
        const here = page.url();
        await Promise.all([page.waitForURL(`${here}?lang=${w.to}`), page.click('#lang-switch')]);
        await opened(w.to);
        await ctx.close();
      }
    }
  } finally {
    await browser?.close();
    await t.close();
    await fake.close();
  }
});
