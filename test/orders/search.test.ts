import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { createTestApp, createTestStore } from '../helpers/app';
import { insertPaidOrder } from '../refunds/factory';
import { createProduct } from '../checkout/factory';
import { exportOrdersCsv, listOrders } from '../../src/orders/service';

test('order search: id exactly, a part of the e-mail or name (any case, LIKE wildcards literal), status and a creation-time range', async () => {
  const t = await createTestApp();
  try {
    const s = await createTestStore(t);
    const p = await createProduct(t, s, { name: '검색 상품', price: 1000 });
    const mk = async (name: string, email: string, status: 'paid' | 'refunded' = 'paid') => {
      const id = await insertPaidOrder(t, s.storeId, p.id, { amount: 1000, status });
      await t.db.updateTable('orders').set({ buyer_name: name, buyer_email: email }).where('id', '=', id).execute();
      t.clock.advance(60_000);
      return id;
    };
    const a = await mk('김철수', 'Chulsoo@Example.com');
    const b = await mk('이영희', 'younghee_100%@example.com', 'refunded');
    const from = t.clock.now();
    const c = await mk('박민수', 'minsu@test.kr');
    const f = { storeId: s.storeId, mode: 'test' as const, productIds: null };
    const ids = async (search: Parameters<typeof listOrders>[3]) => (await listOrders(t.deps, f, { page: 1, limit: 20 }, search)).data.map((o) => o.id);

    assert.deepEqual(await ids({ q: a }), [a]);
    assert.deepEqual(await ids({ q: 'chulsoo@' }), [a]);
    assert.deepEqual(await ids({ q: '영희' }), [b]);
    assert.deepEqual(await ids({ q: '100%' }), [b]);
    assert.deepEqual(await ids({ q: '%' }), [b], 'a % typed is a literal percent sign, not "anything"');
    assert.deepEqual(await ids({ q: '_' }), [b]);
    assert.deepEqual(await ids({ status: 'refunded' }), [b]);
    assert.deepEqual(await ids({ from }), [c]);
    assert.deepEqual(await ids({ to: from }), [b, a]);
    assert.deepEqual(await ids({ q: 'example.com', status: 'paid' }), [a]);
    const page = await listOrders(t.deps, f, { page: 1, limit: 20 }, { q: 'nobody' });
    assert.equal(page.total, 0);
    // another mode never shows
    assert.deepEqual((await listOrders(t.deps, { ...f, mode: 'live' }, { page: 1, limit: 20 }, { q: a })).data, []);
  } finally {
    await t.close();
  }
});

test('CSV export: every matching order once, in batches, newest first, with the BOM and a header', async () => {
  const t = await createTestApp();
  try {
    const s = await createTestStore(t);
    const p = await createProduct(t, s, { name: '=HYPERLINK("x")', price: 1000 });
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(await insertPaidOrder(t, s.storeId, p.id, { amount: 1000 + i }));
      t.clock.advance(1000);
    }
    await t.db.updateTable('orders').set({ product_name: '=HYPERLINK("x")', buyer_name: '홍, "길동"' }).where('store_id', '=', s.storeId).execute();
    const repo = await import('../../src/orders/repo');
    // batches of 3 walk all 7 without OFFSET
    const seen: string[] = [];
    for await (const rows of repo.scanOrders(t.db, { storeId: s.storeId, mode: 'test', productIds: null }, {}, 3)) seen.push(...rows.map((r) => r.id));
    assert.deepEqual(seen, [...made].reverse());
    let csv = '';
    for await (const chunk of exportOrdersCsv(t.deps, { storeId: s.storeId, mode: 'test', productIds: null }, {})) csv += chunk;
    assert.ok(csv.startsWith('\uFEFF주문번호,'));
    const lines = csv.slice(1).split('\r\n').filter(Boolean);
    assert.equal(lines.length, 8);
    assert.ok(lines[1].startsWith(`${made[6]},test,paid,"'=HYPERLINK(""x"")",`), lines[1]);
    assert.ok(lines[1].includes(',"홍, ""길동""",'), lines[1]);
  } finally {
    await t.close();
  }
});

test('order search: a whole e-mail matches that address exactly (any case) by an index; a whole order id by its key; parts stay substring searches', async () => {
  const t = await createTestApp();
  try {
    const s = await createTestStore(t);
    const p = await createProduct(t, s, { name: '검색 상품', price: 1000 });
    const mk = async (name: string, email: string) => {
      const id = await insertPaidOrder(t, s.storeId, p.id, { amount: 1000 });
      await t.db.updateTable('orders').set({ buyer_name: name, buyer_email: email }).where('id', '=', id).execute();
      t.clock.advance(60_000);
      return id;
    };
    const a1 = await mk('김철수', 'Chulsoo@Example.com');
    const x = await mk('엑스', 'xchulsoo@example.com');
    const a2 = await mk('김철수', 'chulsoo@example.com');
    const au = await mk('호주', 'chulsoo@example.com.au');
    const f = { storeId: s.storeId, mode: 'test' as const, productIds: null };
    const ids = async (q: string) => (await listOrders(t.deps, f, { page: 1, limit: 20 }, { q })).data.map((o) => o.id);

    assert.deepEqual(await ids('chulsoo@example.com'), [a2, a1], 'that address only, any case: not xchulsoo@…, not …com.au');
    assert.deepEqual(await ids(' CHULSOO@EXAMPLE.COM '), [a2, a1]);
    assert.deepEqual(await ids('chulsoo@example'), [au, a2, x, a1], 'a part of an address is still a substring search');
    assert.deepEqual(await ids('example.com.au'), [au]);
    assert.deepEqual(await ids(x), [x]);
    assert.deepEqual(await ids(x.toUpperCase()), [x], 'an order id typed in capitals');
    assert.equal((await listOrders(t.deps, f, { page: 1, limit: 20 }, { q: 'chulsoo@example.com' })).total, 2);

    // The exact e-mail search is answered from orders_buyer_email_idx, not by reading every order of the store.
    const { ordersQuery } = await import('../../src/orders/repo');
    const c = ordersQuery(t.db, f, { q: 'chulsoo@example.com' }).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(20).compile();
    const plan = await t.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const r = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${c.sql}`, [...c.parameters]));
      return r.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.match(plan, /orders_buyer_email_idx/, plan);
  } finally {
    await t.close();
  }
});
