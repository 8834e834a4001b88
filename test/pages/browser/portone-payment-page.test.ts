import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../../src/platform/clock';
import { html } from '../../../src/pages/html';
import { portoneLaunchPage } from '../../../src/pages/pay/portone-view';
import { PortOneProvider } from '../../../src/payments/portone';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';
import { startFakePortOne } from '../../payments/fake-portone';

/**
 * @slow The payment page of a store on PortOne, in Chromium at 390 px and 1280 px: it calls PortOne's browser SDK
 * (a stand-in served by the fake) with our order id as the paymentId, the seller's channel key for the method, the
 * amount in KRW and our return URL; while the window is open the page explains itself (axe: no violation, no sideways
 * scroll); a closed window shows PortOne's message and lets the buyer open it again; a finished one sends the buyer to
 * the return URL with the paymentId, where the server's read-back confirms the payment. The page is rendered by
 * src/pages/pay/portone-view.ts (the /pay route's own launch, in both languages: portone-pages-lang.test.ts).
 * Screenshots: /tmp/shots/i42b/<step>-<width>.png.
 */
const SHOTS = '/tmp/shots/i42b';

test('PortOne payment page: requestPayment with our order id, a closed window, a finished one confirmed by reading back; 390 px and 1280 px with axe', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const clock = new ManualClock('2026-11-20T03:00:00.000Z');
  const fake = await startFakePortOne({ clock });
  const provider = new PortOneProvider({ apiSecret: fake.apiSecret, storeId: fake.storeId, baseUrl: fake.baseUrl, timeoutMs: 10_000, clock });
  const channelKey = 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00';
  let orderSeq = 0;
  const returned: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/pay/return')) {
      returned.push(url.searchParams.get('paymentId') ?? '');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="ko"><title>확인 중</title><main><h1>결제를 확인하는 중입니다</h1></main></html>');
      return;
    }
    if (url.pathname !== '/pay/launch') {
      res.writeHead(404).end();
      return;
    }
    const orderId = `ord_portone_page_${++orderSeq}`;
    const page = portoneLaunchPage({
      payment: {
        storeId: fake.storeId,
        channelKey,
        orderId,
        orderName: '사진 보정 데스크톱 앱 Pro 평생 라이선스',
        amount: 55_000,
        method: 'card',
        installmentMonths: 3,
        buyer: { name: '김구매', email: 'buyer@example.com', phone: '010-1234-5678' },
        returnUrl: `http://${req.headers.host}/pay/return`,
        virtualAccountValidHours: 72,
      },
      nonce: 'n0nce',
      lang: 'ko',
      title: '사진 보정 데스크톱 앱 Pro 결제',
      before: html`<section class="card"><h2>주문 내용</h2><p>사진 보정 데스크톱 앱 Pro 평생 라이선스 · 55,000원</p></section>`,
      links: html`<a class="cancel" href="/pay/edit">결제 정보 수정하기</a>`,
      sdkUrl: fake.sdkUrl,
    });
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let browser: Browser | null = null;
  try {
    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      const page = await ctx.newPage();
      const check = async (step: string) => {
        const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
        assert.ok(o.scroll <= o.client, `${step} ${width}: no sideways scroll (${JSON.stringify(o)})`);
        const axe = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [], `${step} ${width}: axe`);
        await page.screenshot({ path: `${SHOTS}/${step}-${width}.png`, fullPage: true });
      };

      await page.goto(`${base}/pay/launch`);
      await page.waitForFunction(() => typeof (window as unknown as { __portoneFinish?: unknown }).__portoneFinish === 'function');
      const request = await page.evaluate(() => (window as unknown as { __portoneRequests: Array<Record<string, any>> }).__portoneRequests[0]);
      const orderId = `ord_portone_page_${orderSeq}`;
      assert.deepEqual(
        { ...request, customer: undefined },
        { storeId: fake.storeId, channelKey, paymentId: orderId, orderName: '사진 보정 데스크톱 앱 Pro 평생 라이선스', totalAmount: 55_000, currency: 'CURRENCY_KRW', payMethod: 'CARD', card: { installment: { monthOption: { fixedMonth: 3 } } }, customer: undefined, redirectUrl: `${base}/pay/return`, locale: 'KO_KR' },
      );
      assert.ok(await page.isDisabled('#portone-open'), 'no second window while one is open');
      await check('portone-window-open');

      // The buyer closes the PG's window: PortOne's message, and the button opens it again (same paymentId).
      await page.evaluate(() => (window as unknown as { __portoneFinish: (close?: boolean) => Promise<unknown> }).__portoneFinish(true));
      await page.waitForFunction(() => document.getElementById('portone-error')!.textContent !== '');
      assert.equal(await page.textContent('#portone-error'), '사용자가 결제를 취소했습니다.');
      assert.ok(await page.isEnabled('#portone-open'));
      await check('portone-window-closed');

      await page.click('#portone-open');
      await page.waitForFunction(() => (window as unknown as { __portoneRequests: unknown[] }).__portoneRequests.length === 2);
      const again = await page.evaluate(() => (window as unknown as { __portoneRequests: Array<Record<string, any>> }).__portoneRequests[1]);
      assert.equal(again.paymentId, orderId);
      await Promise.all([page.waitForURL(/\/pay\/return/), page.evaluate(() => {
        // Not awaited in the page: the answer's redirect can replace this document before the evaluation's result
        // comes back ("Execution context was destroyed" on a loaded machine).
        void (window as unknown as { __portoneFinish: () => Promise<unknown> }).__portoneFinish();
      })]);
      assert.equal(new URL(page.url()).searchParams.get('paymentId'), orderId);
      assert.equal(returned.at(-1), orderId);
      // What the return route does with it: read the payment back and compare amount and currency.
      const confirmed = await provider.confirmPayment({ paymentKey: orderId, orderId, amount: 55_000, idempotencyKey: `c-${orderId}` });
      assert.equal(confirmed.status, 'succeeded', JSON.stringify(confirmed));
      if (confirmed.status === 'succeeded') assert.equal(confirmed.value.installmentMonths, 3, 'the 할부 fixed in the window');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await new Promise<void>((r) => server.close(() => r()));
    await fake.close();
  }
});
