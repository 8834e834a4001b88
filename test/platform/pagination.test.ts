import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { listPage } from '../../src/platform/http/pagination';
import { bearer, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { insertPaidOrder, product } from '../refunds/factory';

// A list's page is a plain LIMIT/OFFSET and its exact `total` a separate count, both started at once (issue 43: a
// `count(*) over ()` column made every page of a big store walk all its rows).

test('listPage starts the rows and the count together and answers the count as the total, whatever the page holds', async () => {
  const started: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const rows = async (offset: number, limit: number) => {
    started.push(`rows ${offset} ${limit}`);
    await gate;
    return ['a', 'b'];
  };
  const count = async () => {
    started.push('count');
    await gate;
    return 57;
  };
  const page = listPage({ page: 3, limit: 2 }, count, rows, (x) => x.toUpperCase());
  // Neither has finished, both have started: one does not wait for the other.
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started.sort(), ['count', 'rows 4 2']);
  release();
  assert.deepEqual(await page, { data: ['A', 'B'], total: 57, page: 3, limit: 2 });
  // Past the end: no rows, the total still the count.
  assert.deepEqual(await listPage({ page: 40, limit: 2 }, async () => 57, async () => [], (x: string) => x), { data: [], total: 57, page: 40, limit: 2 });
});

let t: TestApp;
let s: TestStore;
const ids: string[] = [];
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  const p = await product(t, s);
  for (let i = 0; i < 5; i++) {
    t.clock.set(new Date(Date.parse('2026-11-02T01:00:00.000Z') + i * 60_000).toISOString());
    ids.push(await insertPaidOrder(t, s.storeId, p.id));
  }
});
after(async () => {
  await t?.close();
});

test('GET /v1/orders: a full page, the last page and a page past the end all carry the exact total, newest first', async () => {
  const get = async (q: string) => (await t.app.inject({ url: `/v1/orders?${q}`, headers: bearer(s.key) })).json();
  const first = await get('limit=2');
  assert.equal(first.total, 5);
  assert.deepEqual(first.data.map((o: any) => o.id), [ids[4], ids[3]]);
  const last = await get('limit=2&page=3');
  assert.equal(last.total, 5);
  assert.deepEqual(last.data.map((o: any) => o.id), [ids[0]]);
  const past = await get('limit=2&page=4');
  assert.deepEqual([past.total, past.data.length, past.page, past.limit], [5, 0, 4, 2]);
});
