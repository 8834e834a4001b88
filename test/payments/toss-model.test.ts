import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardSummary, isPayment, mapTossMethod, mapTossStatus, tossError } from '../../src/payments/toss-model';

test('Toss method mapping: wallets by easyPay.provider, in Korean or English, everything else card', () => {
  assert.equal(mapTossMethod({ method: '카드', easyPay: null }), 'card');
  assert.equal(mapTossMethod({ method: 'CARD' }), 'card');
  assert.equal(mapTossMethod({ method: '간편결제', easyPay: { provider: '카카오페이' } }), 'kakao_pay');
  assert.equal(mapTossMethod({ method: '간편결제', easyPay: { provider: '네이버페이' } }), 'naver_pay');
  assert.equal(mapTossMethod({ method: '간편결제', easyPay: { provider: '토스페이' } }), 'toss');
  assert.equal(mapTossMethod({ method: 'EASY_PAY', easyPay: { provider: 'KAKAOPAY' } }), 'kakao_pay');
  assert.equal(mapTossMethod({ method: 'EASY_PAY', easyPay: { provider: 'NaverPay' } }), 'naver_pay');
  assert.equal(mapTossMethod({ method: 'EASY_PAY', easyPay: { provider: 'TOSSPAY' } }), 'toss');
  // A wallet paying with a registered card can come back as method 카드 with easyPay set: the wallet wins.
  assert.equal(mapTossMethod({ method: '카드', easyPay: { provider: '토스페이' } }), 'toss');
  // Wallets we do not offer are card payments underneath.
  assert.equal(mapTossMethod({ method: '간편결제', easyPay: { provider: '삼성페이' } }), 'card');
  assert.equal(mapTossMethod({ method: '간편결제', easyPay: { provider: null } }), 'card');
});

test('Toss status mapping', () => {
  assert.equal(mapTossStatus('DONE'), 'paid');
  assert.equal(mapTossStatus('PARTIAL_CANCELED'), 'partially_canceled');
  assert.equal(mapTossStatus('CANCELED'), 'canceled');
  assert.equal(mapTossStatus('ABORTED'), 'failed');
  assert.equal(mapTossStatus('EXPIRED'), 'failed');
  assert.equal(mapTossStatus('READY'), 'pending');
  assert.equal(mapTossStatus('IN_PROGRESS'), 'pending');
  assert.equal(mapTossStatus('WAITING_FOR_DEPOSIT'), 'pending');
  assert.equal(mapTossStatus('SOMETHING_NEW'), 'unknown');
});

test('Toss error bodies are read in both the flat and the nested shape', () => {
  assert.deepEqual(tossError({ code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제 정보 입니다.' }), { code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제 정보 입니다.' });
  assert.deepEqual(tossError({ version: '2024-06-01', traceId: 't', error: { code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' } }), { code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' });
  assert.equal(tossError({ message: 'no code' }), null);
  assert.equal(tossError('text'), null);
});

test('a Payment needs key, status and integer amounts', () => {
  assert.ok(isPayment({ paymentKey: 'k', orderId: 'o', status: 'DONE', totalAmount: 1000, balanceAmount: 1000 }));
  assert.ok(!isPayment({ paymentKey: 'k', status: 'DONE', totalAmount: '1000', balanceAmount: 1000 }));
  assert.ok(!isPayment({ code: 'X', message: 'y' }));
  assert.ok(!isPayment(null));
});

test('card summary reads card.issuerCode / card.number (cardCompany/cardNumber are gone since API 2024-06-01)', () => {
  assert.equal(cardSummary({ billingKey: 'b', customerKey: 'c', card: { issuerCode: '61', number: '43301234****123*' } }), '현대 43301234****123*');
  assert.equal(cardSummary({ billingKey: 'b', customerKey: 'c', card: { issuerCode: '11', number: '9490****1234' } }), 'KB국민 9490****1234');
  // An issuer code missing from the table still shows the masked number.
  assert.equal(cardSummary({ billingKey: 'b', customerKey: 'c', card: { issuerCode: 'ZZ', number: '43301234****123*' } }), '43301234****123*');
  assert.equal(cardSummary({ billingKey: 'b', customerKey: 'c' }), null);
});
