import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../../helpers/app';
import { addSessionToBrowser, signIn } from '../helpers';
import { startFakeToss } from '../../payments/fake-toss';
import { updateModeSettings } from '../../../src/stores/service';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

test('the go-live checklist on Settings in Chromium: done and missing items readable at 390 px and on a desktop, axe-clean, screenshots in /tmp/golive-*.png', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const toss = await startFakeToss({ kind: 'live' });
  const t = await createTestApp({ config: { tossApiBaseUrl: toss.baseUrl } });
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const store = await createTestStore(t, { verified: false });
    // Half-way: business details and accepted live keys, nothing else yet.
    await updateModeSettings(t.deps, store.storeId, 'live', { paymentProvider: 'toss', tossClientKey: toss.clientKey, tossSecretKey: toss.secretKey, returnUrlDomains: [] });
    const owner = await signIn(t, { store });
    browser = await launchChromium(chromium);
    for (const [w, h] of [
      [390, 844],
      [1280, 800],
    ]) {
      const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1, locale: 'ko-KR' });
      await addSessionToBrowser(context, base, owner);
      const page = await context.newPage();
      await page.goto(`${base}/dashboard/settings`);
      const card = page.locator('[data-testid=go-live]');
      assert.ok(await card.isVisible());
      assert.equal(await page.locator('[data-testid=go-live-progress]').textContent(), '2/7 완료');
      assert.equal(await page.locator('[data-testid=go-live-tossKeys]').getAttribute('data-done'), 'true');
      assert.match((await page.locator('[data-testid=go-live-verifiedContact]').textContent()) ?? '', /필요.*공개 연락처 인증/s);
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      assert.ok(fits, `fits ${w} px without horizontal scroll`);
      const result = await new AxeBuilder({ page: page as any }).include('[data-testid=go-live]').analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(bad.map((v) => v.id), [], `axe at ${w}px`);
      await page.screenshot({ path: `/tmp/golive-settings-${w}x${h}.png`, fullPage: w === 390 });
      await card.screenshot({ path: `/tmp/golive-card-${w}.png` });
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
    await toss.close();
  }
});
