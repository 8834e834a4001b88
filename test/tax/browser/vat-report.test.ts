import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp } from '../../helpers/app';
import { signIn, addSessionToBrowser } from '../../dashboard/helpers';
import { insertPaidOrder, product, refund } from '../../refunds/factory';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/i40v';

test('the 부가세 page in Chromium: pick a period, read the table and the monthly chart, follow a drill-down; no axe violation, no sideways scroll at 390 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    const s = owner.store;
    const p = await product(t, s, { price: 10_000 });
    const sales: Array<[string, number, 'card' | 'kakao_pay' | 'transfer' | 'virtual_account']> = [
      ['2026-07-03T02:00:00Z', 1_250_000, 'card'],
      ['2026-07-21T02:00:00Z', 89_000, 'kakao_pay'],
      ['2026-08-05T02:00:00Z', 330_000, 'transfer'],
      ['2026-08-30T02:00:00Z', 45_000, 'card'],
      ['2026-09-12T02:00:00Z', 770_000, 'virtual_account'],
      ['2026-10-02T02:00:00Z', 120_000, 'card'],
    ];
    const ids = [];
    for (const [at, amount, method] of sales) ids.push(await insertPaidOrder(t, s.storeId, p.id, { amount, method, paidAt: new Date(at) }));
    t.clock.set('2026-09-20T02:00:00Z');
    assert.equal((await refund(t, s.key, ids[0], { amount: 250_000 })).statusCode, 200);
    t.clock.set('2026-11-01T00:00:00Z');

    browser = await launchChromium(chromium);
    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, locale: 'ko-KR' });
    const desktop = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'ko-KR' });
    await addSessionToBrowser(mobile, base, owner);
    await addSessionToBrowser(desktop, base, owner);
    const page = await mobile.newPage();
    const wide = await desktop.newPage();

    // The section is in the navigation; the picker moves from the default quarter to 2026년 3분기.
    await page.goto(`${base}/dashboard`);
    await Promise.all([page.waitForURL(/\/dashboard\/vat/), page.click('nav.sections a[href="/dashboard/vat"]')]);
    await page.selectOption('#v-period', '2026-Q3');
    await Promise.all([page.waitForURL(/period=2026-Q3/), page.click('[data-testid=vat-period] button[type=submit]')]);
    assert.match((await page.textContent('[data-testid=vat-period-label]')) ?? '', /2026년 3분기/);
    // 1,250,000 + 89,000 + 45,000 − 250,000 = 1,134,000 card; 330,000 기타; 770,000 기타 (no 현금영수증)
    assert.match((await page.textContent('tr[data-category="card"]')) ?? '', /1,134,000원/);
    assert.match((await page.textContent('tr[data-category="overall"]')) ?? '', /2,234,000원/);

    const check = async (name: string, path: string, status = 200) => {
      const res = await page.goto(`${base}${path}`);
      assert.equal(res?.status(), status, path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at 390 px`);
      const axe = await new AxeBuilder({ page }).analyze();
      assert.deepEqual(axe.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], path);
      await page.screenshot({ path: `${SHOTS}/${name}-390x844.png`, fullPage: true });
      await wide.goto(`${base}${path}`);
      const axeWide = await new AxeBuilder({ page: wide }).analyze();
      assert.deepEqual(axeWide.violations.map((v) => v.id), [], `${path} at 1280 px`);
      await wide.screenshot({ path: `${SHOTS}/${name}-1280x800.png`, fullPage: true });
    };
    await check('vat-q3', '/dashboard/vat?period=2026-Q3');
    await check('vat-half', '/dashboard/vat?period=2026-2');
    await check('vat-lines-card', '/dashboard/vat/lines?period=2026-Q3&category=card');
    // A refused range answers 400 with the reason on the page and the picker to correct it.
    await check('vat-error', '/dashboard/vat?period=custom&from=2026-09-10&to=2026-09-01', 400);
    assert.match((await page.textContent('[data-testid=problem]')) ?? '', /종료일\(to\)은 시작일\(from\)보다 뒤여야 합니다/);

    // The drill-down link of the card line lists its four lines, the refund among them.
    await page.goto(`${base}/dashboard/vat?period=2026-Q3`);
    await Promise.all([page.waitForURL(/category=card/), page.click('tr[data-category="card"] a')]);
    assert.equal(await page.locator('tr[data-order-id]').count(), 4);
    assert.equal(await page.locator('tr[data-kind="refund"]').count(), 1);
  } finally {
    await browser?.close();
    await t.close();
  }
});
