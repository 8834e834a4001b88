import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder, refundRows } from '../refunds/factory';
import { createProduct } from '../checkout/factory';

const idemOf = (body: string) => /name="idem" value="([^"]+)"/.exec(body)?.[1] ?? '';

test('dashboard refund form: a reason with a bidi control is refused on the page (field named, Korean), nothing refunded', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
  const order = await insertPaidOrder(t, owner.storeId, p.id, { amount: 15_000 });
  const page = await t.app.inject({ url: `/dashboard/orders/${order}`, headers: owner.headers });
  const res = await postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', reason: '단순 변심\u202Eexe.', idem: idemOf(page.body) });
  assert.equal(res.statusCode, 400, res.body.slice(0, 300));
  assert.match(res.body, /사유에는 글자 방향을 바꾸는 제어 문자/);
  assert.equal((await refundRows(t, order)).length, 0);
  const ok = await postForm(t, owner, `/dashboard/orders/${order}/refund`, { amount: '1000', reason: '단순 변심', idem: idemOf(page.body) });
  assert.equal(ok.statusCode, 303);
  assert.equal((await refundRows(t, order)).length, 1);
});
