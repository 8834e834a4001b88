import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createTestApp, createTestStore } from '../../helpers/app';
import { act } from '../../refunds/requests/helpers';
import { runMailOnce } from '../../../src/mail/dispatch';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { cancelledAwaitingSeller } from '../cancel-rejected-setup';

// Issue 29 item 3: the mail a buyer gets when the seller rejects the refund that came with a portal cancel (the service
// runs to its period end), as the buyer's mail client shows it: 390 px and 1280 px screenshots, nothing overflows.

const SHOTS = '/tmp/shots/i29a';

test('the rejected-cancel-refund mail at 390 px and 1280 px: rejected, service until the period end (KST), then it ends without charges', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const s = await createTestStore(t);
    const email = 'mail-shot@example.com';
    const sub = await cancelledAwaitingSeller(t, s, email);
    assert.equal((await act({ t, s }, sub.requestId, 'reject', { reason: '이번 달 사용량이 많아 환불이 어렵습니다' })).statusCode, 200);
    await runMailOnce(t.deps, t.clock.now());
    const mail = await t.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).where('kind', '=', 'refund_request_decided').executeTakeFirstOrThrow();
    browser = await launchChromium(chromium);
    for (const [width, height] of [
      [390, 844],
      [1280, 800],
    ]) {
      const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, locale: 'ko-KR', javaScriptEnabled: false });
      const page = await context.newPage();
      await page.setContent(mail.html_body ?? '', { waitUntil: 'load' });
      const text = await page.locator('body').innerText();
      assert.match(text, /환불 요청이 거절되었습니다/);
      assert.match(text, /2027년 4월 2일 오전 10:00 KST까지 그대로 이용하실 수 있습니다/);
      assert.match(text, /더는 결제되지 않습니다/);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      assert.equal(overflow, false, `nothing overflows at ${width} px`);
      await page.screenshot({ path: `${SHOTS}/mail-cancel-refund-rejected-${width}.png`, fullPage: true });
      await context.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
