import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createTestApp, createTestStore, bearer } from '../../helpers/app';
import { createMember } from '../../../src/dashboard/members';
import { createProduct, createSession, submitPayForm } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';
import { emit, pump } from '../../webhooks/setup';
import { startReceiver } from '../../webhooks/receiver';
import { signInInBrowser } from '../helpers';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/dash-frame';
const OPERATOR = { kind: 'operator' as const, id: null, name: null };

/**
 * At the page's current URL: a phone (390x844) and a desktop (1280x800) look, each with an axe-core scan (no serious
 * or critical violations) and no horizontal scroll on the phone; screenshots of both.
 */
async function checkPage(page: Page, name: string): Promise<void> {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  for (const [w, h] of [
    [390, 844],
    [1280, 800],
  ]) {
    await page.setViewportSize({ width: w, height: h });
    const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(fits, `${name} fits ${w} px without horizontal scroll`);
    const result = await new AxeBuilder({ page: page as any }).analyze();
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `${name} at ${w}px: axe serious/critical violations`,
    );
    await page.screenshot({ path: `${SHOTS}/dashboard-${name}-${w}x${h}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
}

test('seller dashboard in Chromium: sign in, Home shows a paid order, rotate an API key, resend a webhook, audit log, a support member gets 403; every page passes axe and fits 390 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  const receiver = await startReceiver();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const s = await createTestStore(t);
    const password = 'browser-pass-1234';
    await createMember(t.deps, { storeId: s.storeId, email: 'owner@example.com', name: '정소유', role: 'owner', password }, OPERATOR);
    await createMember(t.deps, { storeId: s.storeId, email: 'support@example.com', name: '한지원', role: 'support', password }, OPERATOR);
    const product = await createProduct(t, s, { name: '디자인 템플릿', price: 25_000 });
    const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/ok' });
    assert.equal((await submitPayForm(t, session, { cardNumber: TEST_CARDS.success })).statusCode, 303);

    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'ko-KR' });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('response', (r) => {
      if (r.status() === 404) consoleErrors.push(`404 ${r.url()}`);
    });
    page.on('dialog', (d) => void d.accept());

    // Sign-in page, then sign in.
    await page.goto(`${base}/dashboard/login`);
    await checkPage(page, 'login');
    await signInInBrowser(page, base, 'owner@example.com', password);
    assert.match(await page.locator('[data-testid="net-today"]').innerText(), /25,000원/);
    assert.ok(await page.locator('.testbanner').isVisible(), 'test data is marked');
    await checkPage(page, 'home');

    // Rotate the API key: the new secret appears once (htmx-boosted form post).
    await page.click('nav.sections a[href="/dashboard/developers"]');
    await page.waitForSelector('[data-testid="keys"]');
    await checkPage(page, 'developers-keys');
    await page.locator(`tr[data-key="${s.keyId}"] button:has-text("교체")`).click();
    const secret = await page.locator('[data-testid="secret"] code').innerText();
    assert.match(secret, /^svc_test_/);
    assert.equal((await t.app.inject({ url: '/v1/products', headers: bearer(secret) })).statusCode, 200);
    await checkPage(page, 'developers-key-rotated');

    // Webhooks: create an endpoint through the form, then resend an event from its detail page.
    await page.goto(`${base}/dashboard/developers/webhooks`);
    await page.fill('#w-url', receiver.url('/hooks'));
    await page.click('button:has-text("엔드포인트 만들기")');
    await page.waitForSelector('[data-testid="endpoints"]');
    await checkPage(page, 'developers-webhooks');
    const ev = await emit(t, s.storeId, 'order.paid', { orderId: 'ord_browser' });
    await pump(t);
    assert.equal(receiver.byId(ev.id).length, 1);
    await page.goto(`${base}/dashboard/developers/events`);
    await checkPage(page, 'developers-events');
    await page.click(`a[href="/dashboard/developers/events/${ev.id}"]`);
    await page.waitForSelector('[data-testid="deliveries"]');
    await page.click('button:has-text("다시 보내기")');
    await page.waitForSelector('text=다시 보내기를 예약했습니다');
    await pump(t);
    assert.equal(receiver.byId(ev.id).length, 2, 'resent');
    await checkPage(page, 'developers-event');

    // Mode switch: live mode loses the test banner.
    await page.click('button:has-text("라이브 모드로 전환")');
    await page.waitForSelector('[data-testid="mode"]:has-text("라이브")');
    assert.equal(await page.locator('.testbanner').count(), 0);
    await checkPage(page, 'live-mode');
    await page.click('button:has-text("테스트 모드로 전환")');
    await page.waitForSelector('.testbanner');

    // Audit log: each action with the member's name.
    await page.goto(`${base}/dashboard/audit`);
    const audit = await page.locator('[data-testid="audit-table"]').innerText();
    for (const action of ['session.signed_in', 'api_key.rotated', 'webhook_endpoint.created', 'event.resent']) assert.match(audit, new RegExp(action.replace('.', '\\.')));
    assert.match(audit, /정소유/);
    await checkPage(page, 'audit');

    // Settings: store and payments, members (with a password shown once), settlements.
    await page.click('nav.sections a[href="/dashboard/settings"]');
    await page.waitForSelector('[data-testid="business-details"]');
    await checkPage(page, 'settings');
    await page.goto(`${base}/dashboard/settings/members`);
    await page.fill('#mm-name', '문개발');
    await page.fill('#mm-email', 'dev@example.com');
    await page.selectOption('#mm-role', 'developer');
    await page.click('button:has-text("추가하고 비밀번호 만들기")');
    await page.waitForSelector('[data-testid="secret"]');
    await checkPage(page, 'settings-members');
    await page.goto(`${base}/dashboard/settings/settlements`);
    await checkPage(page, 'settings-settlements');

    // English.
    await page.click('button:has-text("English")');
    await page.waitForSelector('html[lang="en"]');
    await checkPage(page, 'audit-en');
    await page.click('button:has-text("한국어")');
    await page.waitForSelector('html[lang="ko"]');

    // A support member cannot open API keys: the Korean 403 page.
    const other = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'ko-KR' });
    const sp = await other.newPage();
    await signInInBrowser(sp, base, 'support@example.com', password);
    const res = await sp.goto(`${base}/dashboard/developers`);
    assert.equal(res?.status(), 403);
    assert.match(await sp.locator('[data-testid="forbidden"]').innerText(), /고객 지원/);
    await checkPage(sp, 'forbidden');
    await other.close();

    assert.deepEqual(consoleErrors, [], 'no console errors (CSP violations included)');
  } finally {
    await browser?.close();
    await receiver.close();
    await t.close();
  }
});
