import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { sql } from 'kysely';
import { createTestApp } from '../../helpers/app';
import { insertPaidOrder } from '../../refunds/factory';
import { createProduct } from '../../checkout/factory';
import { signIn, addSessionToBrowser } from '../helpers';
import { chromiumOrSkip, launchChromium, type Browser } from '../../helpers/browser';

const SHOTS = '/tmp/shots/i43soak';

test('dashboard orders past 10,000 in Chromium: the pager says "10,000건 이상" and links the next page, axe finds nothing, it fits 390 px', async (tc) => {
  const chromium = await chromiumOrSkip(tc);
  if (!chromium) return;
  const { default: AxeBuilder } = await import('@axe-core/playwright');
  mkdirSync(SHOTS, { recursive: true });
  const t = await createTestApp();
  let browser: Browser | null = null;
  try {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await signIn(t, { name: '김사장' });
    const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
    const first = await insertPaidOrder(t, owner.storeId, p.id, { amount: 15_000 });
    const { rows } = await sql<{ c: string }>`select column_name as c from information_schema.columns where table_name = 'orders' and table_schema = current_schema() and column_name not in ('id', 'checkout_session_id')`.execute(t.db);
    const cols = sql.join(rows.map((r) => sql.ref(r.c)));
    await sql`insert into orders (id, ${cols}) select ${'ord_copy_'} || g, ${cols} from orders, generate_series(1, 10000) g where id = ${first}`.execute(t.db);

    browser = await launchChromium(chromium);
    for (const [w, h] of [[390, 844], [1280, 800]] as const) {
      const ctx = await browser.newContext({ viewport: { width: w, height: h }, locale: 'ko-KR' });
      await addSessionToBrowser(ctx, base, owner);
      const page = await ctx.newPage();
      await page.goto(`${base}/dashboard/orders`);
      assert.equal((await page.textContent('[data-testid=pager-total]'))?.trim(), '1 페이지 · 10,000건 이상');
      const axe = await new AxeBuilder({ page }).analyze();
      assert.deepEqual(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`), [], `axe at ${w} px`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `no sideways scroll at ${w} px`);
      await page.screenshot({ path: `${SHOTS}/orders-10000-or-more-${w}x${h}.png`, fullPage: true });
      await Promise.all([page.waitForURL(/page=2/), page.click('a[rel=next]')]);
      assert.equal((await page.textContent('[data-testid=pager-total]'))?.trim(), '2 페이지 · 10,000건 이상');
      await ctx.close();
    }
  } finally {
    await browser?.close();
    await t.close();
  }
});
