import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp } from '../../helpers/app';
import { signIn, addSessionToBrowser } from '../helpers';
import { startFakePortOne } from '../../payments/fake-portone';
import type { Response } from 'playwright-core';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/i42c';

test('dashboard settings with PortOne in Chromium: chosen and saved through the form, at 390 px and 1280 px, no axe violation, no sideways scroll', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    browser = await launchChromium(chromium);
    for (const [name, viewport] of [['390x844', { width: 390, height: 844 }], ['1280x800', { width: 1280, height: 800 }]] as const) {
      const ctx = await browser.newContext({ viewport, locale: 'ko-KR' });
      await addSessionToBrowser(ctx, base, owner);
      const page = await ctx.newPage();
      await page.goto(`${base}/dashboard/settings`);
      await page.selectOption('#provider', 'portone');
      await page.fill('#pos', fake.storeId);
      await page.fill('#poa', fake.apiSecret);
      await page.fill('#pow', fake.webhookSecret);
      await page.fill('#poc-card', 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00');
      // Wait for the POST's own answer: the page is already loaded, so waiting for 'load' raced the form's submit.
      const [posted]: [Response, void] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/dashboard/settings/payments') && r.request().method() === 'POST'),
        page.click('form[action="/dashboard/settings/payments"] button[type=submit]'),
      ]);
      assert.equal(posted.status(), 200, 'the settings form is saved (the page answers with the saved settings)');
      await page.waitForLoadState('load');
      await page.goto(`${base}/dashboard/settings`);
      assert.equal(await page.inputValue('#provider'), 'portone');
      assert.match((await page.textContent('[data-testid=portone-secret-state]')) ?? '', /설정되어 있습니다/);
      const axe = await new AxeBuilder({ page }).analyze();
      assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), []);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `no sideways scroll (${overflow}px)`);
      await page.locator('[data-testid=portone-fields]').screenshot({ path: `${SHOTS}/settings-portone-${name}.png` });
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
    await fake.close();
  }
});
