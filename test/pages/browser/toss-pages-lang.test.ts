import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, post } from '../../helpers/app';
import { createProduct, createSession, createSubscriptionProduct, payPath, submitPayForm } from '../../checkout/factory';
import { startFakeToss } from '../../payments/fake-toss';
import { updateModeSettings } from '../../../src/stores/service';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * @slow The pages around Toss's windows (the one-off payment window, a subscription's card registration at checkout
 * and in the portal, and Toss's fail return) in Korean and in English, in Chromium at 390 px and 1280 px, reached
 * through the service's own forms: the browser's language chooses (Accept-Language), the page says in that language
 * what the window is for, its switch is visible and leads to the same step in the other language, axe finds no
 * violation and nothing scrolls sideways. Toss documents no language option for its windows (see tossWindowPage), so
 * the page's words carry the language: an SDK error's Korean text is shown on a Korean page only.
 * Screenshots: /tmp/shots/i42gaps/toss-<lang>-<step>-<width>.png.
 */
const SHOTS = '/tmp/shots/i42gaps';

/** Stands in for Toss's SDK v2 (js.tosspayments.com is out of reach here): records the call and refuses it as Toss's window does when closed. */
const FAKE_SDK = `window.TossPayments = function (clientKey) {
  return { payment: function (o) {
    function call(name) { return function (req) {
      window.__toss = { call: name, clientKey: clientKey, customerKey: o.customerKey, request: req };
      return Promise.reject({ code: 'USER_CANCEL', message: '사용자가 결제를 취소했습니다.' });
    }; }
    return { requestPayment: call('requestPayment'), requestBillingAuth: call('requestBillingAuth') };
  } };
};
window.TossPayments.ANONYMOUS = '@@ANONYMOUS';`;

const WORDS = {
  ko: { pay: '결제창을 여는 중입니다', billing: '결제 카드를 등록해 주세요', portal: '새 결제 카드를 등록해 주세요', to: 'en', payErr: '사용자가 결제를 취소했습니다.', closed: '결제를 취소했습니다.', portalSummary: '결제 카드 변경' },
  en: { pay: 'Opening the payment window', billing: 'Register your card', portal: 'Register your new card', to: 'ko', payErr: 'The payment window could not be opened.', closed: 'You canceled the payment.', portalSummary: 'Change card' },
} as const;

test('Toss launch pages and its fail return in Korean and English at 390 and 1280 px: the language the browser asks for, a visible switch, axe 0 violations', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const fake = await startFakeToss({ kind: 'live' });
  const t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 5_000 } });
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
    const live = (await s.newKey({ mode: 'live' })).key;
    const product = await createProduct(t, s, { mode: 'live', price: 55_000, name: '사진 보정 앱 Pro' });
    const sub = await createSubscriptionProduct(t, s, { mode: 'live', name: '프로 멤버십' });

    // A live subscription for the portal's card change (its first card registered through Toss's billing-auth return).
    const first = await createSession(t, live, { productId: sub.id, planId: 'basic', interval: 'monthly', successUrl: 'https://example.com/ok' });
    assert.equal((await submitPayForm(t, first)).statusCode, 200);
    const subscriptionId = `sub_${first.id.slice(3)}`;
    const paid = await t.app.inject({ url: `${payPath(first)}/toss/billing-success?customerKey=${subscriptionId}&authKey=auth_first` });
    assert.equal(paid.statusCode, 303, paid.body);

    browser = await launchChromium(chromium);
    for (const lang of ['ko', 'en'] as const) {
      const w = WORDS[lang];
      for (const width of [390, 1280]) {
        const locale = lang === 'ko' ? 'ko-KR' : 'en-US';
        const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale } : { viewport: { width, height: 900 }, locale });
        await ctx.route('https://js.tosspayments.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: FAKE_SDK }));
        const page = await ctx.newPage();
        const check = async (step: string) => {
          assert.equal(await page.getAttribute('html', 'lang'), lang, `${lang} ${step} ${width}: <html lang>`);
          assert.ok(await page.isVisible('#lang-switch'), `${lang} ${step} ${width}: the switch is visible`);
          assert.match((await page.getAttribute('#lang-switch', 'href')) ?? '', new RegExp(`lang=${w.to}`));
          const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
          assert.ok(o.scroll <= o.client, `${lang} ${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
          const axe = await new AxeBuilder({ page }).analyze();
          assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${lang} ${step} ${width}: axe`);
          await page.screenshot({ path: `${SHOTS}/toss-${lang}-${step}-${width}.png`, fullPage: true });
        };
        type P = typeof page;
        const launch = async (p: P, url: string, step: string, subscription: boolean) => {
          assert.equal((await p.goto(url))?.status(), 200);
          await p.fill('#buyerName', 'Jane Doe');
          await p.fill('#buyerEmail', `jane-${lang}-${width}-${step}@example.com`);
          await p.fill('#buyerPhone', '010-1234-5678');
          await p.check('#agreeAll');
          if (subscription) await p.check('#agreeRecurring');
          else await p.locator('input[name=method][value=card]').check();
          const [launched] = await Promise.all([p.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), p.click('#pay-button')]);
          assert.equal(launched.status(), 200);
          await p.waitForFunction(() => (window as unknown as { __toss?: unknown }).__toss && document.getElementById('toss-error')!.textContent !== '');
        };

        // The one-off payment window: Toss refused (closed); the page says so in its language and offers the button again.
        const session = await createSession(t, live, { productId: product.id });
        await launch(page, session.url, 'pay', false);
        assert.equal((await page.evaluate(() => (window as unknown as { __toss: { call: string } }).__toss)).call, 'requestPayment');
        assert.equal((await page.textContent('h1'))?.trim(), w.pay);
        assert.equal(await page.textContent('#toss-error'), w.payErr, "Toss's Korean error text on a Korean page only");
        assert.ok(await page.isEnabled('#toss-open'));
        await check('pay-launch');
        // The switch leads back to the form in the other language (the same session).
        await Promise.all([page.waitForURL(`**${payPath(session)}?lang=${w.to}`), page.click('#lang-switch')]);
        assert.equal(await page.getAttribute('html', 'lang'), w.to);
        // The switch is remembered (cookie): the buyer switches back for the rest of this run.
        await Promise.all([page.waitForURL(`**${payPath(session)}?lang=${lang}`), page.click('#lang-switch')]);
        assert.equal(await page.getAttribute('html', 'lang'), lang);

        // Toss's failUrl after the buyer closed the window: the form again, with the page's own words.
        assert.equal((await page.goto(`${address}${payPath(session)}/toss/fail?code=PAY_PROCESS_CANCELED&message=${encodeURIComponent('사용자에 의해 결제가 취소되었습니다.')}&lang=${lang}`))?.status(), 422);
        assert.equal((await page.textContent('#banner'))?.trim(), w.closed);
        await check('fail-return');

        // A subscription's card registration window (requestBillingAuth).
        await launch(page, (await createSession(t, live, { productId: sub.id, planId: 'basic', interval: 'monthly' })).url, 'billing', true);
        assert.equal((await page.evaluate(() => (window as unknown as { __toss: { call: string } }).__toss)).call, 'requestBillingAuth');
        assert.equal((await page.textContent('h1'))?.trim(), w.billing);
        await check('billing-launch');

        // The portal's card change: Toss's billing-auth window from the portal's launch page.
        const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(live), payload: { subscriptionId } });
        assert.equal(portal.statusCode, 200, portal.body);
        const portalUrl = portal.json().url as string;
        assert.equal((await page.goto(`${portalUrl}?lang=${lang}`))?.status(), 200);
        await page.click(`summary:has-text("${w.portalSummary}")`);
        await Promise.all([page.waitForURL(`${portalUrl}/card/*`), page.click('button[data-action="card"]')]);
        await page.waitForFunction(() => (window as unknown as { __toss?: unknown }).__toss && document.getElementById('toss-error')!.textContent !== '');
        assert.equal((await page.textContent('h1'))?.trim(), w.portal);
        await check('portal-card-launch');
        // Its switch reopens the same launch page (the same registration) in the other language.
        const here = page.url();
        await Promise.all([page.waitForURL(`${here}?lang=${w.to}`), page.click('#lang-switch')]);
        assert.equal(await page.getAttribute('html', 'lang'), w.to);
        assert.equal((await page.textContent('h1'))?.trim(), WORDS[w.to].portal);
        await ctx.close();
      }
    }
  } finally {
    await browser?.close();
    await t.close();
    await fake.close();
  }
});
