/**
 * What reconciliation reads from Toss: the approvals and cancels of a time range (GET /v1/transactions) and the
 * settlement records of a range of days (GET /v1/settlements). Both are read-only and may take up to 60 s, so they
 * run on the slow deadline.
 */
import type { GatewaySettlement, ListSettlementsInput, ListTransactionsInput, Outcome, TransactionPage } from './provider';
import { isSettlement, isTransaction, settlementOf, tossKstDateTime } from './toss-model';
import { TOSS_SLOW_CALL_MIN_MS, UNKNOWN, type TossClient } from './toss-http';

/** A transactions query over a busy period may take as long: it runs on the slow deadline, never a confirm's. */
export const TOSS_TRANSACTIONS_TIMEOUT_MS = TOSS_SLOW_CALL_MIN_MS;

/**
 * GET /v1/transactions?startDate&endDate[&startingAfter]&limit: one page of the approvals and cancels Toss recorded
 * in the range (by transactionAt), oldest first. Toss answers a plain array; a full page means another may follow,
 * asked for with `startingAfter` = the last transactionKey. Read-only, so any failure is just "not now": 4xx → failed
 * with Toss's code (INVALID_TRANSACTION_KEY for a bad cursor), the rest unknown.
 */
export async function listTransactions(client: TossClient, input: ListTransactionsInput): Promise<Outcome<TransactionPage>> {
  const q = new URLSearchParams({ startDate: tossKstDateTime(input.startDate), endDate: tossKstDateTime(input.endDate) });
  if (input.startingAfter) q.set('startingAfter', input.startingAfter);
  q.set('limit', String(input.limit));
  const reply = await client.call('GET', `/v1/transactions?${q}`, undefined, undefined, true);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
  if (!Array.isArray(reply.body) || !reply.body.every(isTransaction)) return { status: 'unknown', message: `${UNKNOWN} (거래 내역 형식 오류)` };
  const transactions = reply.body.map((t) => ({
    transactionKey: t.transactionKey,
    paymentKey: t.paymentKey,
    orderId: t.orderId,
    kind: t.status === 'DONE' ? ('approval' as const) : t.status === 'CANCELED' || t.status === 'PARTIAL_CANCELED' ? ('cancel' as const) : ('other' as const),
    status: t.status,
    amount: t.amount,
    // PayPal's rows are in USD (Transaction.currency), read in cents by the client.
    ...(t.currency === 'USD' ? { currency: 'USD' as const } : {}),
    transactionAt: new Date(t.transactionAt),
  }));
  const full = transactions.length >= input.limit && transactions.length > 0;
  return { status: 'succeeded', value: { transactions, nextStartingAfter: full ? transactions[transactions.length - 1].transactionKey : null } };
}

/**
 * GET /v1/settlements?startDate&endDate&dateType&page&size (https://docs.tosspayments.com/reference#정산-조회,
 * https://docs.tosspayments.com/guides/apis/settlements): one page of Toss's settlement records, by 정산 매출일
 * (soldDate, default) or 정산 지급일 (paidOutDate). Dates only (records are kept by date). Like transactions it may
 * take up to 60 s ("정산 조회는 최대 60초가 소요됩니다"), so it runs on the slow deadline. Read-only.
 */
export async function listSettlements(client: TossClient, input: ListSettlementsInput): Promise<Outcome<GatewaySettlement[]>> {
  const q = new URLSearchParams({ startDate: input.startDate, endDate: input.endDate });
  if (input.dateType) q.set('dateType', input.dateType);
  q.set('page', String(input.page));
  q.set('size', String(input.size));
  const reply = await client.call('GET', `/v1/settlements?${q}`, undefined, undefined, true);
  if (reply.kind === 'unknown') return { status: 'unknown', message: reply.message };
  if (reply.kind === 'error') return { status: 'failed', code: reply.code, message: reply.message };
  if (!Array.isArray(reply.body) || !reply.body.every(isSettlement)) return { status: 'unknown', message: `${UNKNOWN} (정산 내역 형식 오류)` };
  return { status: 'succeeded', value: reply.body.map(settlementOf) };
}
