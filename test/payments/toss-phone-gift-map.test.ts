import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lookupOf, mapTossMethod } from '../../src/payments/toss-model';

// Issue 41: Toss's Payment.method words for 휴대폰 결제 and 상품권 (the enum of Payment.method, core API 2022-11-16:
// 카드, 가상계좌, 간편결제, 휴대폰, 계좌이체, 문화상품권, 도서문화상품권, 게임문화상품권; the English forms are the payment
// window's method names) map to our methods, and a lookup carries Payment.isPartialCancelable.
test('Toss method words of 휴대폰 and 상품권 map to our methods; isPartialCancelable is read', () => {
  const cases: Array<[string, string]> = [
    ['휴대폰', 'mobile_phone'],
    ['MOBILE_PHONE', 'mobile_phone'],
    ['문화상품권', 'culture_gift'],
    ['CULTURE_GIFT_CERTIFICATE', 'culture_gift'],
    ['도서문화상품권', 'book_gift'],
    ['BOOK_GIFT_CERTIFICATE', 'book_gift'],
    ['게임문화상품권', 'game_gift'],
    ['GAME_GIFT_CERTIFICATE', 'game_gift'],
    ['카드', 'card'],
  ];
  for (const [method, ours] of cases) assert.equal(mapTossMethod({ method, easyPay: null }), ours, method);
  const base = { paymentKey: 'pk', orderId: 'ord_123456', status: 'DONE', totalAmount: 5_000, balanceAmount: 5_000 };
  assert.equal(lookupOf({ ...base, isPartialCancelable: false }).partialCancelable, false);
  assert.equal(lookupOf({ ...base, isPartialCancelable: true }).partialCancelable, true);
  assert.equal(lookupOf(base).partialCancelable, null, 'not said: null');
});
