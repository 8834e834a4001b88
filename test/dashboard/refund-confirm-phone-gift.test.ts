import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder } from '../refunds/factory';
import { createProduct } from '../checkout/factory';

// Issue 41: the dashboard's refund confirmation says where a 휴대폰 / 상품권 refund goes, as the refund engine decides
// it: the phone bill inside the payment's KST month, the buyer's account after it (and whether one is on file); full only.
const text = (body: string) => body.replace(/<style[\s\S]*?<\/style>/g, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const hidden = (body: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(body)?.[1];

test('refund confirmation of a phone payment in its month, after it (no account), and of a gift certificate', async (tc) => {
  const t = await createTestApp(); // 09:00 KST, 1 November 2026
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const p = await createProduct(t, owner.store, { name: '전자책', price: 8_800 });
  const phone = await insertPaidOrder(t, owner.storeId, p.id, { amount: 8_800, method: 'mobile_phone' });
  const gift = await insertPaidOrder(t, owner.storeId, p.id, { amount: 8_800, method: 'book_gift' });
  // Paid at 23:30 KST on 31 October (14:30 UTC): now, 09:00 KST on 1 November, its month has passed in Korea.
  const october = await insertPaidOrder(t, owner.storeId, p.id, { amount: 8_800, method: 'mobile_phone', paidAt: new Date('2026-10-31T14:30:00.000Z') });
  const confirm = async (order: string) => {
    const path = `/dashboard/orders/${order}`;
    const page = await t.app.inject({ url: path, headers: owner.headers });
    const res = await postForm(t, owner, `${path}/refund/confirm`, { amount: '', whole: '1', idem: hidden(page.body, 'idem')! });
    assert.equal(res.statusCode, 200, `${res.headers.location} ${res.body}`);
    return text(res.body);
  };
  assert.match(await confirm(phone), /환불 대상 구매자의 휴대폰 요금 \(결제한 달 안의 결제 취소, 전액만\)/);
  assert.match(await confirm(gift), /환불 대상 구매자가 결제한 도서문화상품권 \(전액만 환불\)/);
  assert.match(await confirm(october), /환불 계좌 없음: 결제한 달이 지나 휴대폰 결제는 구매자 계좌로만 환불됩니다/);
});
