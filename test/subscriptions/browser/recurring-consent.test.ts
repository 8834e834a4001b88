import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, bearer, post } from '../../helpers/app';
import { createSubscriptionProduct, createSession } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const VIEWPORTS = [
  { name: '390', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  { name: '1280', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
] as const;
const SHOTS = '/tmp/trial';

/**
 * A subscription's payment page in Chromium (phone and desktop): beside the pay button it states the amount, the
 * cycle and the next charge date, with a separate unticked consent; paying without it is refused (nothing charged);
 * with it the subscription starts and keeps the consent's wording and time, which the portal shows. Then a free
 * trial's page: 0 today, the trial end and the first charge.
 */
test('subscription pay page: amount, cycle and next charge date beside the pay button, refused without the recurring consent, consent readable on the subscription and in the portal', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const product = await createSubscriptionProduct(t, s, { name: '프로 멤버십' });
    const trial = await createSubscriptionProduct(t, s, { name: '체험 멤버십', plans: [{ id: 'basic', name: '베이직', monthlyPrice: 12_000, yearlyPrice: null, trialDays: 14 }] });
    browser = await launchChromium(chromium);

    for (const vp of VIEWPORTS) {
      const context = await browser.newContext({ viewport: vp.viewport, deviceScaleFactor: vp.deviceScaleFactor, isMobile: vp.isMobile, hasTouch: vp.hasTouch, locale: 'ko-KR' });
      const page = await context.newPage();
      const session = await createSession(t, s.key, { productId: product.id, planId: 'basic', interval: 'monthly', customer: { name: '김구독', email: `sub-${vp.name}@example.com` } });
      assert.equal((await page.goto(session.url))?.status(), 200);
      assert.equal(await page.textContent('#recurring-amount'), '매월 9,900원');
      assert.equal(await page.textContent('#recurring-cycle'), '1개월마다');
      assert.equal(await page.textContent('#recurring-next'), '2026년 12월 1일');
      assert.match((await page.textContent('#recurring-terms')) ?? '', /구독 관리 페이지\)에서 언제든 해지할 수 있습니다/);
      assert.equal(await page.isChecked('#agreeRecurring'), false, 'the consent box starts unticked');
      // The notice sits beside the pay button: right above it.
      const [box, button] = [await page.locator('#recurring-terms').boundingBox(), await page.locator('#pay-button').boundingBox()];
      assert.ok(box && button && button.y > box.y + box.height - 1 && button.y - (box.y + box.height) < 60, 'the recurring notice is right above the pay button');

      await page.fill('#buyerPhone', '010-1234-5678');
      await page.fill('#cardNumber', TEST_CARDS.success.replace(/(\d{4})(?=\d)/g, '$1 '));
      await page.check('#agreeAll');
      assert.equal(await page.isChecked('#agreeRecurring'), false, '"전체 동의" does not tick the recurring consent');
      await page.screenshot({ path: `${SHOTS}/trial-consent-form-${vp.name}.png`, fullPage: true });
      const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), page.click('#pay-button')]);
      assert.equal(refused.status(), 422);
      await page.waitForLoadState('load');
      assert.match((await page.textContent('#agreeRecurring-err')) ?? '', /정기결제에 동의해 주세요/);
      assert.equal(await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).executeTakeFirst(), undefined, 'nothing was charged');
      await page.screenshot({ path: `${SHOTS}/trial-consent-refused-${vp.name}.png`, fullPage: true });

      // The card number is never sent back: type it again, tick the consent, pay.
      const label = (await page.textContent('label:has(#agreeRecurring)'))!.replace('[필수]', '').trim();
      await page.fill('#cardNumber', TEST_CARDS.success);
      await page.check('#agreeRecurring');
      const [paid] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/pay/')), page.click('#pay-button')]);
      assert.equal(paid.status(), 200);
      await page.waitForLoadState('load');
      const order = await t.db.selectFrom('orders').select(['subscription_id', 'amount']).where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow();
      assert.equal(Number(order.amount), 9_900);
      const sub = (await t.app.inject({ url: `/v1/subscriptions/${order.subscription_id}`, headers: bearer(s.key) })).json();
      assert.equal(sub.recurringConsent.text, label, 'the consent kept is the sentence the buyer ticked');
      assert.equal(sub.recurringConsent.consentedAt, t.clock.now().toISOString());

      // The portal shows the consent.
      const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.id } });
      assert.equal(portal.statusCode, 200, portal.body);
      await page.goto(portal.json().url);
      await page.click(`#consent-${sub.id} summary`);
      assert.equal((await page.textContent(`#consent-${sub.id} p`))?.trim(), label);
      await page.screenshot({ path: `${SHOTS}/trial-consent-portal-${vp.name}.png`, fullPage: true });

      // A free trial's page: nothing today, the trial end, then the monthly amount.
      const ts = await createSession(t, s.key, { productId: trial.id, planId: 'basic', interval: 'monthly', customer: { name: '김체험', email: `trial-${vp.name}@example.com` } });
      await page.goto(ts.url);
      assert.equal(await page.textContent('#recurring-now'), '0원 (무료 체험, 카드 등록만)');
      assert.equal(await page.textContent('#recurring-trial-end'), '2026년 11월 15일');
      assert.equal(await page.textContent('#recurring-amount'), '매월 12,000원');
      assert.equal((await page.textContent('#pay-button'))?.trim(), '카드 등록하고 무료 체험 시작');
      assert.match((await page.textContent('label:has(#agreeRecurring)')) ?? '', /체험 종료일 2026년 11월 15일부터 매월 12,000원이/);
      await page.screenshot({ path: `${SHOTS}/trial-page-${vp.name}.png`, fullPage: true });
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
