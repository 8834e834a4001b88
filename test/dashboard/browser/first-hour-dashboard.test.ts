// @slow: Chromium (Debian's /usr/bin/chromium) through playwright-core
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createTestApp } from '../../helpers/app';
import { signIn, signInInBrowser } from '../helpers';
import { createProduct, createSession, formPost, payPath, submitPayForm } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * The dashboard pages of a seller's first hour, in Chromium at 390 and 1280 px with axe: the refund's confirm step,
 * the test-deposit button of a 가상계좌 order, Home's note on what "paid" counts, and the TOTP setup key in a font that
 * tells O from 0, and live Home's notice of what still stops live payments. Screenshots in /tmp/shots/i39d/.
 */
const SHOTS = '/tmp/shots/i39d';

async function look(page: Page, name: string): Promise<void> {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  for (const [w, h] of [
    [390, 844],
    [1280, 800],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name} fits ${w} px`);
    const result = await new AxeBuilder({ page: page as any }).analyze();
    assert.deepEqual(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${name} at ${w}px: axe violations`);
    await page.screenshot({ path: `${SHOTS}/${name}-${w}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

test('first-hour dashboard pages: refund confirm, test deposit, home note, TOTP key font; axe 0 at 390 and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('127.0.0.1', 'localhost');
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장', email: 'first-hour@example.com' });
    const product = await createProduct(t, owner.store, { name: '전자책: 실전 가이드', price: 15_000 });
    const card = await createSession(t, owner.store.key, { productId: product.id, successUrl: 'http://localhost/ok' });
    const paid = await submitPayForm(t, card, { cardNumber: TEST_CARDS.success });
    const cardOrder = new URL(String(paid.headers.location)).searchParams.get('order_id')!;
    const va = await createSession(t, owner.store.key, { productId: product.id });
    await submitPayForm(t, va, { method: 'virtual_account' });
    await formPost(t, `${payPath(va)}/approve`, { decision: 'approve' });
    const vaOrder = (await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', va.id).executeTakeFirstOrThrow()).pending_order_id!;

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'ko-KR' });
    const page = await context.newPage();
    await signInInBrowser(page, base, owner.email, owner.password);

    // Home: the note on what the figures count.
    assert.match((await page.textContent('[data-testid=paid-definition]')) ?? '', /같은 기준입니다/);
    await look(page, 'home');

    // Refund: nothing prefilled; 전액 leads to the confirm page; its button refunds.
    await page.goto(`${base}/dashboard/orders/${cardOrder}`);
    assert.equal(await page.inputValue('#refund-amount'), '');
    await look(page, 'order-refund-form');
    await page.fill('#refund-amount', '5,000');
    await page.fill('#refund-reason', '일부 환불');
    await page.click('#refund-form button[type=submit]:not([name])');
    await page.waitForSelector('[data-testid=refund-confirm]');
    assert.match((await page.textContent('[data-testid=confirm-amount]')) ?? '', /5,000원/);
    assert.match((await page.textContent('[data-testid=confirm-target]')) ?? '', /카드/);
    await look(page, 'refund-confirm');
    await Promise.all([page.waitForURL(/done=refunded/), page.click('[data-testid=refund-confirm] button[type=submit]')]);
    assert.match((await page.textContent('#refunded-amount')) ?? '', /5,000원/);

    // Test deposit on the waiting 가상계좌 order.
    await page.goto(`${base}/dashboard/orders/${vaOrder}`);
    await look(page, 'order-test-deposit');
    await Promise.all([page.waitForURL(/done=deposited/), page.click('[data-testid=test-deposit] button')]);
    assert.match((await page.textContent('#order-status')) ?? '', /결제 완료|완료/);

    // TOTP setup: the key in a monospace font with slashed zero, grouped in fours.
    await page.goto(`${base}/dashboard/account/security`);
    await page.click('button:has-text("인증 앱 설정하기")');
    await page.waitForSelector('[data-testid="totp-secret"]');
    const key = await page.locator('[data-testid="totp-secret"]');
    assert.match((await key.innerText()).trim(), /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    const style = await key.evaluate((el) => ({ family: getComputedStyle(el).fontFamily, numeric: getComputedStyle(el).fontVariantNumeric }));
    assert.match(style.family, /DejaVu Sans Mono/);
    assert.equal(style.numeric, 'slashed-zero');
    await look(page, 'totp-key');
    await key.screenshot({ path: `${SHOTS}/totp-key-closeup.png` });

    // Live mode before live payments can be taken: Home says why its figures are empty and links the checklist.
    await page.goto(`${base}/dashboard`);
    await Promise.all([page.waitForURL(/\/dashboard/), page.click('button:has-text("라이브 모드로 전환")')]);
    await page.goto(`${base}/dashboard`);
    assert.match((await page.textContent('[data-testid=live-not-ready]')) ?? '', /토스페이먼츠 라이브 키 확인/);
    await look(page, 'home-live-not-ready');
  } finally {
    await browser?.close();
    await t.close();
  }
});
