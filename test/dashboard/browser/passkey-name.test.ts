import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp } from '../../helpers/app';
import { signIn, addSessionToBrowser } from '../helpers';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/i39c';

test('renaming a passkey with a bidi control in Chromium: the account page shows the refusal (Korean), keeps the old name, passes axe and fits 390 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await signIn(t, { name: '정소유' });
    await t.db.insertInto('member_passkeys').values({ id: 'pk_browser1', member_id: owner.memberId, store_id: owner.storeId, credential_id: 'cred-browser-1', public_key: 'AAAA', transports: JSON.stringify(['internal']), name: '업무용 노트북', device_type: 'multiDevice', backed_up: true, created_at: t.deps.clock.now(), last_used_at: null } as any).execute();
    await t.db.updateTable('dashboard_sessions').set({ second_factor_at: t.deps.clock.now() }).where('member_id', '=', owner.memberId).execute();
    browser = await launchChromium(chromium);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale: 'ko-KR' });
    await addSessionToBrowser(context, base, owner);
    const page = await context.newPage();
    await page.goto(`${base}/dashboard/account/security`);
    const input = page.locator('[data-testid="passkeys"] input[name="name"]');
    await input.fill('노트북\u202Eexe.');
    await Promise.all([page.waitForLoadState('load'), input.press('Enter')]);
    await page.waitForSelector('text=패스키 이름에는');
    assert.equal(await page.inputValue('[data-testid="passkeys"] input[name="name"]'), '업무용 노트북');
    const { default: AxeBuilder } = await import('@axe-core/playwright');
    for (const [w, h] of [[390, 844], [1280, 800]]) {
      await page.setViewportSize({ width: w, height: h });
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `fits ${w} px`);
      const result = await new AxeBuilder({ page: page as any }).analyze();
      assert.deepEqual(result.violations.map((v) => `${v.id}/${v.impact}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), [], `axe at ${w}px: ${JSON.stringify(result.violations.map((v) => [v.id, v.impact, v.nodes.map((n) => n.target.join(" "))]))}`);
      await page.screenshot({ path: `${SHOTS}/passkey-rename-refused-${w}.png`, fullPage: true });
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
