import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTossNotice } from '../../src/payments';

// Toss's webhook bodies (https://docs.tosspayments.com/reference/using-api/webhook-events) read into the neutral
// GatewayNotice the gateway/ room acts on: which payment or billing key to read back, never a verdict.

test('a Toss webhook body becomes the notice of what to read back', () => {
  // DEPOSIT_CALLBACK comes without an eventType; also taken wrapped in { eventType, data }.
  const deposit = { createdAt: '2026-01-01T00:00:00.000', secret: 'ps_abc', orderId: 'ord_123456', status: 'DONE', transactionKey: 'tx1' };
  assert.deepEqual(readTossNotice(deposit), { kind: 'deposit', orderId: 'ord_123456', secret: 'ps_abc' });
  assert.deepEqual(readTossNotice({ eventType: 'DEPOSIT_CALLBACK', data: deposit }), { kind: 'deposit', orderId: 'ord_123456', secret: 'ps_abc' });
  assert.deepEqual(readTossNotice({ eventType: 'PAYMENT_STATUS_CHANGED', data: { paymentKey: 'pk_1', orderId: 'ord_123456', status: 'CANCELED' } }), {
    kind: 'payment',
    eventType: 'PAYMENT_STATUS_CHANGED',
    paymentKey: 'pk_1',
    orderId: 'ord_123456',
  });
  // A Cancel object need not name its payment: both null (the receiver ignores it, the reconciliation covers it).
  assert.deepEqual(readTossNotice({ eventType: 'CANCEL_STATUS_CHANGED', data: { transactionKey: 'tx' } }), { kind: 'payment', eventType: 'CANCEL_STATUS_CHANGED', paymentKey: null, orderId: null });
  assert.deepEqual(readTossNotice({ eventType: 'BILLING_DELETED', data: { billingKey: 'bk_1', reason: 'x' } }), { kind: 'billing_key_deleted', eventType: 'BILLING_DELETED', billingKey: 'bk_1' });
  // Ids that cannot be ours (not short ASCII) name nothing.
  assert.deepEqual(readTossNotice({ eventType: 'PAYMENT_STATUS_CHANGED', data: { paymentKey: 'pk 1; drop', orderId: 'x'.repeat(201) } }), {
    kind: 'payment',
    eventType: 'PAYMENT_STATUS_CHANGED',
    paymentKey: null,
    orderId: null,
  });
  assert.deepEqual(readTossNotice({ eventType: 'PAYOUT_STATUS_CHANGED', data: {} }), { kind: 'ignored' });
  assert.deepEqual(readTossNotice({ status: 'DONE' }), { kind: 'invalid' }, 'no eventType and no deposit secret');
  assert.deepEqual(readTossNotice([1]), { kind: 'invalid' });
  assert.deepEqual(readTossNotice(null), { kind: 'invalid' });
});
