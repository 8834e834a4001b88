import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp } from '../../helpers/app';
import { signIn, addSessionToBrowser } from '../../dashboard/helpers';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { startFakeToss } from '../../payments/fake-toss';
import { TossProvider } from '../../../src/payments/toss';
import { updateModeSettings } from '../../../src/stores/service';
import { runReconciliation, startReconciliation } from '../../../src/reconciliation/service';
import { insertPaidOrder, product } from '../../refunds/factory';

const SHOTS = '/tmp/shots/toss-settlements';

test('dashboard: a reconciliation shows Toss\'s settlements (payout per day and MID, fee and its VAT) and the settings take the 자동결제 MID keys; 390 px and desktop, axe clean', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  const fake = await startFakeToss({ billingMid: true, clock: t.clock });
  let browser: Browser | null = null;
  try {
    t.deps.config.tossApiBaseUrl = fake.baseUrl;
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    const s = owner.store;
    await updateModeSettings(t.deps, s.storeId, 'test', {
      paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey, tossBillingClientKey: fake.billing!.clientKey, tossBillingSecretKey: fake.billing!.secretKey,
    });
    // A day of payments under both MIDs: two one-time payments (one partly refunded at Toss) and a subscription charge.
    const p = await product(t, s, {});
    const payments = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl, clock: t.clock });
    const billing = new TossProvider({ secretKey: fake.billing!.secretKey, baseUrl: fake.baseUrl, clock: t.clock });
    for (const [key, amount] of [['tpk_a', 34_000], ['tpk_b', 15_000]] as const) {
      const orderId = await insertPaidOrder(t, s.storeId, p.id, { mode: 'test', amount, provider: 'toss', paymentKey: key });
      assert.equal((await payments.confirmPayment({ paymentKey: key, orderId, amount, idempotencyKey: `c-${key}` })).status, 'succeeded');
      t.clock.advance(60_000);
    }
    const issued = await billing.issueBillingKey({ authKey: 'auth_shot', customerKey: 'sub_shot' });
    assert.equal(issued.status, 'succeeded');
    const subOrder = await insertPaidOrder(t, s.storeId, p.id, { mode: 'test', amount: 9_900, provider: 'toss', paymentKey: 'pending' });
    const charged = await billing.chargeBillingKey({ billingKey: (issued as any).value.billingKey, customerKey: 'sub_shot', amount: 9_900, orderId: subOrder, orderName: '멤버십', idempotencyKey: 'chg-shot' });
    assert.equal(charged.status, 'succeeded');
    await t.db.updateTable('orders').set({ provider_payment_key: (charged as any).value.paymentKey, toss_key_pair: 'billing' }).where('id', '=', subOrder).execute();
    const day = new Date(t.clock.now().getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
    t.clock.advance(24 * 3_600_000);
    const run = await startReconciliation(t.deps, s.storeId, { mode: 'test', date: day, source: 'cli', enqueue: false });
    const done = (await runReconciliation(t.deps, run.id))!;
    assert.equal(done.settlements?.status, 'read');
    assert.equal(done.settlements!.payouts.length, 2, 'one payout line per MID');

    // The clock moved a day on: a fresh dashboard session (the first one has idled out).
    const viewer = await signIn(t, { store: s, role: 'admin' });
    browser = await launchChromium(chromium);
    for (const [name, viewport] of [['390x844', { width: 390, height: 844 }], ['1280x800', { width: 1280, height: 800 }]] as const) {
      const ctx = await browser.newContext({ viewport, locale: 'ko-KR', ...(viewport.width < 400 ? { isMobile: true, hasTouch: true } : {}) });
      await addSessionToBrowser(ctx, base, viewer);
      const page = await ctx.newPage();
      const res = await page.goto(`${base}/dashboard/reconciliation/${run.id}`);
      assert.equal(res?.status(), 200);
      const html = await page.content();
      assert.ok(html.includes('data-testid="settlements"'), html.slice(html.indexOf('<main'), html.indexOf('<main') + 3000));
      await page.click('[data-testid=settlements] summary');
      assert.match((await page.textContent('[data-testid=payouts]')) ?? '', /자동결제/);
      assert.match((await page.textContent('[data-testid=settlement-total]')) ?? '', new RegExp(`${done.settlements!.totals.payOutAmount.toLocaleString('ko-KR')}원`));
      const scrollW = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollW <= viewport.width, `the page fits ${viewport.width} px (${scrollW})`);
      await page.screenshot({ path: `${SHOTS}/reconciliation-settlements-${name}.png`, fullPage: true });
      // The test-mode banner (the frame's, not this page's) sits outside the landmarks; everything else is checked.
      const axe = await new AxeBuilder({ page }).exclude('.testbanner').analyze();
      assert.deepEqual(axe.violations.map((v) => v.id), [], `reconciliation page: axe ${JSON.stringify(axe.violations.map((v) => v.nodes.map((n) => n.html.slice(0, 200))))}`);

      await page.goto(`${base}/dashboard/settings`);
      assert.match((await page.textContent('[data-testid=billing-secret-state]')) ?? '', /자동결제 시크릿 키가 설정되어 있습니다/);
      assert.equal(await page.inputValue('#bck'), fake.billing!.clientKey);
      await page.locator('[data-testid=billing-keys]').screenshot({ path: `${SHOTS}/settings-billing-keys-${name}.png` });
      const axe2 = await new AxeBuilder({ page }).include('[data-testid=billing-keys]').analyze();
      assert.deepEqual(axe2.violations.map((v) => v.id), [], 'settings billing keys: axe');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
    await fake.close();
  }
});
