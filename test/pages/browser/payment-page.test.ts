import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createProduct, createSession } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const VIEWPORTS = [
  { name: 'mobile', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
] as const;
const SHOTS = '/tmp/paypage-shots';
const groups = (n: string) => n.replace(/(\d{4})(?=\d)/g, '$1 ');

/**
 * The hosted payment page in Chromium at a phone and a desktop size: the form, a decline, the test-mode wallet
 * approval, the unknown outcome and the receipt. Each is screenshotted (SHOTS) and scanned with axe-core: no
 * serious or critical violations. Enter in a field pays; the pay button is reachable by keyboard and labelled.
 */
test('payment page in a real browser: Enter pays, the pay button is labelled and reachable, axe finds nothing serious on any page', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(SHOTS, { recursive: true });

  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = address;
    const s = await createTestStore(t);
    const product = await createProduct(t, s, {
      name: '데스크톱 앱 라이선스',
      description: '기기 3대까지 활성화할 수 있는 영구 라이선스입니다.\nWindows와 macOS를 지원합니다.',
      price: 55_000,
      refundPolicy: { refundDays: 7, trialOffered: true, usageRestrictionMarked: true },
      license: { mode: 'service', maxActivations: 3, validityDays: null },
    });
    const newSession = (extra: Record<string, unknown> = {}) =>
      createSession(t, s.key, { productId: product.id, customer: { name: '김구매', email: 'buyer@example.com' }, cancelUrl: 'https://example.com/cart', ...extra });

    browser = await launchChromium(chromium);
    const scanned: string[] = [];
    for (const vp of VIEWPORTS) {
      const context = await browser.newContext({ viewport: vp.viewport, deviceScaleFactor: vp.deviceScaleFactor, isMobile: vp.isMobile, hasTouch: vp.hasTouch, locale: 'ko-KR' });
      const page = await context.newPage();
      const failed404: string[] = [];
      page.on('response', (r) => {
        if (r.status() === 404) failed404.push(r.url());
      });
      const check = async (label: string) => {
        await page.screenshot({ path: `${SHOTS}/${label}-${vp.name}.png`, fullPage: true });
        const result = await new AxeBuilder({ page }).analyze();
        const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        assert.deepEqual(
          bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
          [],
          `${label} (${vp.name}) has serious accessibility violations`,
        );
        scanned.push(`${label}-${vp.name}`);
      };

      // 1. The form: labelled pay button reachable by keyboard, countdown running, Enter in a field pays.
      const session = await newSession();
      assert.equal((await page.goto(session.url))?.status(), 200);
      const payButton = page.getByRole('button', { name: '카드로 55,000원 결제' });
      assert.ok(await payButton.isVisible());
      assert.match((await page.textContent('#countdown')) ?? '', /남은 시간 (30:00|29:5\d)/);
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.fill('#cardNumber', groups(TEST_CARDS.success));
      await check('1-form');
      // Keyboard: from the last text field, Tab reaches the pay button.
      await page.focus('#cardNumber');
      let reached = false;
      for (let i = 0; i < 30 && !reached; i++) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate(() => document.activeElement?.id === 'pay-button');
      }
      assert.ok(reached, 'the pay button is reachable with Tab');
      // The script changes the label with the method.
      await page.check('input[name="method"][value="kakao_pay"]');
      assert.equal((await page.textContent('#pay-button'))?.trim(), '카카오페이로 55,000원 결제');
      await page.check('input[name="method"][value="card"]');
      await page.selectOption('#installment', '3');
      // Agreements are required: Enter without them shows the error, nothing is paid.
      await Promise.all([page.waitForLoadState('load'), page.waitForNavigation(), page.press('#buyerName', 'Enter')]);
      assert.match((await page.textContent('#agreements-err')) ?? '', /필수 약관에 모두 동의/);
      await page.fill('#cardNumber', groups(TEST_CARDS.success));
      await page.check('#agreeAll');
      assert.ok(await page.isChecked('#agreeThirdParty'), '전체 동의 ticks every agreement');
      // Enter in the e-mail field pays (the coupon form is separate, so it cannot take the Enter).
      await Promise.all([page.waitForNavigation(), page.press('#buyerEmail', 'Enter')]);
      assert.match((await page.textContent('h1')) ?? '', /결제가 완료되었습니다/);
      const orderId = (await t.db.selectFrom('orders').select('id').where('checkout_session_id', '=', session.id).executeTakeFirstOrThrow()).id;
      const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
      assert.equal(order.amount, 55_000);

      // 2. The receipt with the license key (selectable text + copy button revealed by the script).
      await page.goto(order.receiptUrl);
      assert.equal((await page.textContent('#license-key-0'))?.trim(), order.licenses[0].key);
      assert.ok(await page.getByRole('button', { name: '라이선스 키 복사' }).isVisible());
      await check('5-receipt');

      // 3. A decline.
      const declined = await newSession();
      await page.goto(declined.url);
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.fill('#cardNumber', groups(TEST_CARDS.declined));
      await page.check('#agreeAll');
      // Once the form is submitted the script disables the button and says so (seen from a submit listener added after
      // the script's, which then cancels this one submission; the page is loaded again for the real one).
      const state = await page.evaluate(
        () =>
          new Promise<[boolean, string | null]>((resolve) => {
            const form = document.getElementById('pay-form') as HTMLFormElement;
            form.addEventListener('submit', (e) => {
              e.preventDefault();
              const b = document.getElementById('pay-button') as HTMLButtonElement;
              resolve([b.disabled, b.textContent]);
            });
            form.requestSubmit();
          }),
      );
      assert.deepEqual(state, [true, '결제 진행 중…']);
      await page.goto(declined.url);
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.fill('#cardNumber', groups(TEST_CARDS.declined));
      await page.check('#agreeAll');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      assert.match((await page.textContent('#banner')) ?? '', /카드사가 결제를 거절했습니다.*다른 카드나 다른 결제 수단/);
      await check('2-decline');

      // 4. The easy-pay approval (test mode's stand-in for the wallet app).
      await page.check('input[name="method"][value="kakao_pay"]');
      await page.check('#agreeAll');
      await Promise.all([page.waitForURL(/\/approve$/), page.click('#pay-button')]);
      assert.ok(await page.getByRole('button', { name: /카카오페이로 55,000원 결제 승인/ }).isVisible());
      await check('3-easy-pay-approval');

      // 5. The unknown outcome: it says how long, then the script's polling ends it on a clear failure.
      const unknown = await newSession();
      await page.goto(unknown.url);
      await page.fill('#buyerPhone', '010-1234-5678');
      await page.fill('#cardNumber', groups(TEST_CARDS.unknown));
      await page.check('#agreeAll');
      await Promise.all([page.waitForNavigation(), page.click('#pay-button')]);
      assert.match((await page.textContent('h1')) ?? '', /결제 결과를 확인하고 있습니다/);
      await check('4-unknown-outcome');
      t.clock.advance(61_000);
      await t.deps.worker.runOnce();
      await page.waitForURL(/checking=1/, { timeout: 15_000 });
      assert.match((await page.textContent('h1')) ?? '', /결제가 승인되지 않았습니다/);
      assert.ok(await page.getByRole('link', { name: '상점으로 돌아가기' }).isVisible());
      await check('4b-unknown-failed');
      t.clock.advance(-61_000);

      assert.deepEqual(failed404, [], 'no 404 (favicon included)');
      await context.close();
    }
    assert.equal(scanned.length, 12);
  } finally {
    await browser?.close();
    await t.close();
  }
});
