import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore, post } from '../../helpers/app';
import { owner as ownerHeaders } from '../../checkout/factory';
import { createSubscriptionProduct, subscribe } from '../factory';
import { addSessionToBrowser, signIn } from '../../dashboard/helpers';
import { runMailOnce } from '../../../src/mail/dispatch';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const DIR = '/tmp/shots/i29b';

test('issue 29: the plan-change offer and the long-trial consent request, as mails in the test-mode mailbox and as portal notices (390 px and desktop, screenshots /tmp/shots/i29b)', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(DIR, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const s = await createTestStore(t);
    const p = await createSubscriptionProduct(t, s, {
      plans: [
        { id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 },
        { id: 'pro', name: '프로', monthlyPrice: 19_900, yearlyPrice: 199_000 },
      ],
    });
    const a = await subscribe(t, s, { productId: p.id, buyerEmail: 'offer@example.com' });
    const adv = (id: string, days: number) => t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${id}/test-clock/advance`, headers: ownerHeaders(s), payload: { days } });
    await adv(a.subscriptionId, 10);
    const ch = await t.app.inject({ method: 'POST', url: `/admin/v1/subscriptions/${a.subscriptionId}/change-plan`, headers: ownerHeaders(s), payload: { planId: 'pro', interval: 'monthly' } });
    assert.equal(ch.json().timing, 'awaiting_consent');

    const trialProduct = await createSubscriptionProduct(t, s, { plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000, trialDays: 60 }] });
    const b = await subscribe(t, s, { productId: trialProduct.id, buyerEmail: 'trial@example.com' });
    await adv(b.subscriptionId, 31);
    await runMailOnce(t.deps, t.clock.now());

    const portalUrl = async (subscriptionId: string) => (await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId } })).json().url as string;
    const portals = { offer: await portalUrl(a.subscriptionId), trial: await portalUrl(b.subscriptionId) };

    browser = await launchChromium(chromium);
    const owner = await signIn(t, { store: s });
    for (const [w, h] of [
      [390, 844],
      [1280, 800],
    ]) {
      const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, locale: 'ko-KR' });
      await addSessionToBrowser(context, base, owner);
      const page = await context.newPage();
      // The subscription-started mail with what 제13조② asks (payment method, withdrawal, recurring terms, disputes).
      await page.goto(`${base}/dashboard/developers/mailbox`);
      await page.locator('[data-testid=mails] tbody tr', { hasText: '구독이 시작되었습니다' }).first().locator('a').click();
      await page.waitForSelector('[data-testid=mail-html]');
      const started = (await page.frameLocator('[data-testid=mail-html]').locator('body').textContent()) ?? '';
      assert.ok(started.includes('청약철회') && started.includes('1372') && started.includes('결제 수단'), started);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `mailbox fits ${w} px`);
      await page.screenshot({ path: `${DIR}/mail-started-${w}.png`, fullPage: true });
      for (const [name, subject] of [
        ['offer', '요금제 변경 동의 요청'],
        ['trial', '유료 전환 동의가 필요합니다'],
      ] as const) {
        await page.goto(`${base}/dashboard/developers/mailbox`);
        const row = page.locator('[data-testid=mails] tbody tr', { hasText: subject }).first();
        await row.locator('a').click();
        await page.waitForSelector('[data-testid=mail-html]');
        const shown = (await page.frameLocator('[data-testid=mail-html]').locator('body').textContent()) ?? '';
        if (name === 'offer') {
          assert.ok(shown.includes('베이직 · 매월 9,900원') && shown.includes('프로 · 매월 19,900원'), shown);
          assert.ok(shown.includes('동의 기한'));
        } else {
          assert.ok(shown.includes('결제되지 않고 체험 종료와 함께 구독이 종료됩니다'), shown);
        }
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `mailbox fits ${w} px`);
        await page.screenshot({ path: `${DIR}/mail-${name}-${w}.png`, fullPage: true });

        await page.goto(portals[name]);
        const box = page.locator(name === 'offer' ? '[data-plan-offer]' : '[data-trial-consent="required"]');
        assert.equal(await box.count(), 1);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `portal fits ${w} px`);
        await page.screenshot({ path: `${DIR}/portal-${name}-${w}.png`, fullPage: true });
      }
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
