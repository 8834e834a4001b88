import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, bearer, post } from '../../helpers/app';
import { subscribe } from '../../subscriptions/factory';
import { createProduct, createSession, createSubscriptionProduct, submitPayForm } from '../../checkout/factory';
import { signIn, addSessionToBrowser } from '../helpers';
import { TEST_CARDS } from '../../../src/payments';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

/**
 * Issue 22 item 6, measured in Chromium at 390 px and 1280 px (screenshots: /tmp/pages-<page>-<width>.png): the home
 * chart's labels are readable and the chart fills its card; the dashboard tab bar hides no tab and shows the current
 * one; the receipt keeps the order id and the license key whole; a guide's code-language label does not overlap the
 * code; hosted-page footers line up with the card column; the refund amount shows a thousands separator; a
 * subscription's payment page lists the renewal-declining test card. Every page stays axe-clean.
 */

async function axeClean(page: Page, what: string): Promise<void> {
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  const axe = await new AxeBuilder({ page: page as any }).analyze();
  const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(bad, [], `${what}: axe finds nothing serious`);
}

const rect = (page: Page, sel: string) => page.$eval(sel, (e) => JSON.parse(JSON.stringify(e.getBoundingClientRect())) as DOMRect);

/** Height of one rendered line of the element (its computed line height, or 1.5 × font size for `normal`). */
const oneLine = (page: Page, sel: string) =>
  page.$eval(sel, (e) => {
    const cs = getComputedStyle(e);
    const lh = parseFloat(cs.lineHeight);
    return { height: e.getBoundingClientRect().height - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom) - parseFloat(cs.borderTopWidth) - parseFloat(cs.borderBottomWidth), line: Number.isNaN(lh) ? parseFloat(cs.fontSize) * 1.5 : lh };
  });

test('dashboard home, tab bar, refund form, receipt, guide, footers and the subscription test cards are laid out right at 390 px and 1280 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    t.clock.set('2027-01-08T01:00:00.000Z'); // Friday 10:00 KST
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    t.deps.config.publicBaseUrl = base;
    const owner = await signIn(t, { name: '김사장' });
    const s = owner.store;
    const product = await createProduct(t, s, {
      name: '사진 보정 데스크톱 앱 Pro',
      price: 49_000,
      license: { mode: 'service', maxActivations: 3, validityDays: 365 },
    });
    const session = await createSession(t, s.key, { productId: product.id, successUrl: 'https://example.com/thanks' });
    const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(paid.statusCode, 303, paid.body);
    const order = (await t.app.inject({ url: `/v1/orders/${new URL(String(paid.headers.location)).searchParams.get('order_id')}`, headers: bearer(s.key) })).json();
    assert.equal(order.licenses.length, 1);
    const subProduct = await createSubscriptionProduct(t, s);
    const subSession = await createSession(t, s.key, { productId: subProduct.id, planId: 'basic', interval: 'monthly' });
    const oneTimeSession = await createSession(t, s.key, { productId: product.id });
    const sub = await subscribe(t, s, { productId: subProduct.id });
    const portal = await t.app.inject({ method: 'POST', url: '/v1/portal-sessions', headers: post(s.key), payload: { subscriptionId: sub.subscriptionId, returnUrl: 'https://example.com/account' } });
    assert.equal(portal.statusCode, 200, portal.body);
    const guide = '/docs/ko/accept-payments';

    browser = await launchChromium(chromium);
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext(width === 390 ? { viewport: { width, height: 844 }, isMobile: true, hasTouch: true, locale: 'ko-KR' } : { viewport: { width, height: 900 }, locale: 'ko-KR' });
      await addSessionToBrowser(ctx, base, owner);
      const page = await ctx.newPage();

      // 1. Home: the chart's labels are at least 12 px as rendered, and the chart spans its card's content box.
      await page.goto(`${base}/dashboard`);
      await page.screenshot({ path: `/tmp/pages-home-${width}.png`, fullPage: true });
      const chart = await page.$eval('section[aria-labelledby=chart-h]', (card) => {
        const cs = getComputedStyle(card);
        const box = card.getBoundingClientRect();
        const inner = box.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        const svg = card.querySelector('svg')!.getBoundingClientRect();
        const labels = Array.from(card.querySelectorAll('[data-chart-label]')).map((l) => {
          const r = l.getBoundingClientRect();
          // An SVG text's rendered size is its font size times the drawing's scale; HTML text has scale 1.
          const scale = l instanceof SVGElement && l.ownerSVGElement ? l.ownerSVGElement.getBoundingClientRect().width / l.ownerSVGElement.viewBox.baseVal.width : 1;
          return { text: l.textContent, px: parseFloat(getComputedStyle(l).fontSize) * scale, visible: r.width > 0 && r.height > 0 };
        });
        return { inner, svgWidth: svg.width, labels };
      });
      assert.ok(chart.labels.length >= 3, `${width}: the max, first and last day are labelled (${JSON.stringify(chart.labels)})`);
      for (const l of chart.labels) {
        assert.ok(l.visible, `${width}: label ${l.text} is shown`);
        assert.ok(l.px >= 12, `${width}: label ${l.text} renders at ${l.px.toFixed(1)} px`);
      }
      assert.ok(Math.abs(chart.svgWidth - chart.inner) <= 1, `${width}: the chart is ${chart.svgWidth} px wide in a ${chart.inner} px card`);

      // 2. The tab bar hides no tab (it wraps instead of scrolling sideways) and the current tab is in view.
      for (const path of ['/dashboard', '/dashboard/audit']) {
        await page.goto(`${base}${path}`);
        const nav = await page.$eval('nav.sections', (n) => {
          const cur = n.querySelector('a[aria-current=page]')!.getBoundingClientRect();
          const links = Array.from(n.querySelectorAll('a')).map((a) => a.getBoundingClientRect());
          return { scroll: n.scrollWidth, client: n.clientWidth, cur: { left: cur.left, right: cur.right }, outside: links.filter((r) => r.left < 0 || r.right > window.innerWidth).length };
        });
        assert.ok(nav.scroll <= nav.client, `${width} ${path}: the tab bar does not scroll sideways (${nav.scroll} > ${nav.client})`);
        assert.equal(nav.outside, 0, `${width} ${path}: every tab is in view`);
        assert.ok(nav.cur.left >= 0 && nav.cur.right <= width, `${width} ${path}: the current tab is in view`);
      }
      await page.screenshot({ path: `/tmp/pages-audit-${width}.png` });

      // 7. The whole amount is offered with a thousands separator on its own button (the field is not prefilled).
      await page.goto(`${base}/dashboard/orders/${order.id}`);
      assert.equal(await page.inputValue('#refund-amount'), '');
      assert.match((await page.textContent('#refund-form button[name=whole]')) ?? '', /49,000원/);
      await page.locator('#refund-form').screenshot({ path: `/tmp/pages-refund-form-${width}.png` });
      await axeClean(page, `order detail ${width}`);

      // 3. The receipt keeps the order id and the license key whole: each is one line, its text intact.
      await page.goto(order.receiptUrl);
      await page.screenshot({ path: `/tmp/pages-receipt-${width}.png`, fullPage: true });
      await page.locator('section.card').first().screenshot({ path: `/tmp/pages-receipt-order-${width}.png` });
      await page.locator('#licenses').screenshot({ path: `/tmp/pages-receipt-key-${width}.png` });
      assert.equal((await page.textContent('#order-id'))?.trim(), order.id);
      const id = await oneLine(page, '#order-id');
      assert.ok(id.height <= id.line * 1.1, `${width}: the order id is one line (${id.height} px, line ${id.line} px)`);
      assert.equal((await page.textContent('#license-key-0'))?.trim(), order.licenses[0].key);
      const key = await oneLine(page, '#license-key-0');
      assert.ok(key.height <= key.line * 1.1 + 16, `${width}: the license key is one line (${key.height} px, line ${key.line} px)`); // + room for a scrollbar
      // 6. The withdrawal deadline is written as the other times are (오전/오후), never 24:00.
      const hint = (await page.textContent('#window-hint')) ?? '';
      assert.match(hint, /^청약철회 기간: 2027년 1월 15일 오후 11:59까지/);
      assert.doesNotMatch((await page.textContent('main')) ?? '', /24:00/);
      // 5. The footer starts where the cards start.
      await footerAligned(page, `receipt ${width}`);
      await axeClean(page, `receipt ${width}`);

      // 8. The payment page of a subscription lists the card whose renewals decline; a one-time page does not.
      await page.goto(subSession.url);
      await page.screenshot({ path: `/tmp/pages-pay-subscription-${width}.png`, fullPage: true });
      const cards = (await page.textContent('.test')) ?? '';
      assert.match(cards, /4000 0000 0000 0341\s*첫 결제 승인, 이후 정기결제\(갱신·플랜 변경 차액\) 거절/);
      await footerAligned(page, `subscription payment page ${width}`);
      await axeClean(page, `subscription payment page ${width}`);
      await page.goto(oneTimeSession.url);
      assert.doesNotMatch((await page.textContent('.test')) ?? '', /0341/);
      // The buyer portal's wider column (720 px on a desktop) carries its footer along.
      await page.goto(portal.json().url);
      await page.screenshot({ path: `/tmp/pages-portal-${width}.png`, fullPage: true });
      await footerAligned(page, `portal ${width}`);

      // 4. A guide's code-language label sits above the code, never over its first line.
      await page.goto(`${base}${guide}`);
      await page.locator('.code').first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: `/tmp/pages-guide-${width}.png` });
      const overlaps = await page.$$eval('.code', (blocks) =>
        blocks
          .filter((b) => b.querySelector('.code-lang'))
          .map((b) => {
            const label = b.querySelector('.code-lang')!.getBoundingClientRect();
            const code = b.querySelector('pre code')!;
            const range = document.createRange();
            range.selectNodeContents(code);
            const first = range.getClientRects()[0];
            return { label: { bottom: label.bottom }, first: { top: first.top } };
          })
          .filter((x) => x.label.bottom > x.first.top),
      );
      assert.ok((await page.$$('.code .code-lang')).length > 0, 'the guide has labelled code blocks');
      assert.deepEqual(overlaps, [], `${width}: no code-language label overlaps its code`);
      await axeClean(page, `guide ${width}`);
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});

/** The hosted page's footer has the left and right edges of its cards. */
async function footerAligned(page: Page, what: string): Promise<void> {
  const card = await rect(page, 'main .card');
  const footer = await rect(page, 'footer.biz');
  assert.ok(Math.abs(footer.left - card.left) <= 0.5, `${what}: the footer starts at ${footer.left} px, the card at ${card.left} px`);
  assert.ok(Math.abs(footer.right - card.right) <= 0.5, `${what}: the footer ends at ${footer.right} px, the card at ${card.right} px`);
}
