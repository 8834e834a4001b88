import { test } from 'node:test';
import assert from 'node:assert/strict';
import { issueCashReceipt, maskedIdentity } from '../../src/payments/toss-cash-receipts';
import { ManualClock } from '../../src/platform/clock';

// Reading Toss's answer to POST /v1/cash-receipts (components.schemas.CashReceipt of the 2022-11-16 reference,
// test/fixtures/toss/cash-receipts.json): what the order records comes from it; `issueStatus: FAILED` with its
// `failure` is a refusal; a customerIdentityNumber that comes unmasked is masked before anything keeps it.

const input = { orderId: 'ord_answer_1-cr', orderName: '상품', amount: 120_000, type: '소득공제' as const, identity: '0100001234', idempotencyKey: 'k1' };
const client = (body: unknown) => ({ clock: new ManualClock(), call: async () => ({ kind: 'ok' as const, body }) }) as any;
const receipt = (o: Record<string, unknown> = {}) => ({
  receiptKey: 'rk_1', issueNumber: '123456789', issueStatus: 'IN_PROGRESS', amount: 120_000, taxFreeAmount: 0, orderId: input.orderId, orderName: '상품',
  type: '소득공제', transactionType: 'CONFIRM', businessNumber: '1234567890', customerIdentityNumber: '010****1234', failure: null,
  requestedAt: '2026-11-01T09:00:00+09:00', receiptUrl: 'https://dashboard.tosspayments.com/receipt/x', ...o,
});

test('an IN_PROGRESS answer is the issued receipt as Toss describes it, its masked number included', async () => {
  const r = await issueCashReceipt(client(receipt()), input);
  assert.deepEqual(r, { status: 'succeeded', value: { type: '소득공제', receiptKey: 'rk_1', issueNumber: '123456789', receiptUrl: 'https://dashboard.tosspayments.com/receipt/x', amount: 120_000, identityMasked: '010****1234', issueStatus: 'IN_PROGRESS' } });
});

test('issueStatus FAILED is a refusal with Toss\'s failure code and message', async () => {
  const r = await issueCashReceipt(client(receipt({ issueStatus: 'FAILED', failure: { code: 'SOME_CODE', message: '발급 실패 사유' } })), input);
  assert.deepEqual(r, { status: 'failed', code: 'SOME_CODE', message: '발급 실패 사유' });
});

test('a number Toss returns unmasked is masked; a masked one is kept as Toss wrote it', async () => {
  assert.equal(maskedIdentity('01012345678'), '010****5678');
  assert.equal(maskedIdentity('1234567890'), '123***7890');
  assert.equal(maskedIdentity('010****1234'), '010****1234');
  assert.equal(maskedIdentity(null), null);
  const r = await issueCashReceipt(client(receipt({ customerIdentityNumber: '01012345678' })), input);
  assert.ok(r.status === 'succeeded' && r.value.identityMasked === '010****5678');
});
