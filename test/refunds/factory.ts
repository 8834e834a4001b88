import { productTermsJson } from '../helpers/terms';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { jsonb } from '../../src/db';
import { newId } from '../../src/platform/ids';
import type { Mode } from '../../src/platform/tables';
import { issueLicensesForOrder } from '../../src/licenses/issue-on-payment';
import { post, type TestApp, type TestStore } from '../helpers/app';
import { createProduct, createSession, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import type { PaymentMethod } from '../../src/payments/method';

/** Buys a product through the real checkout (payment page, simulator) with a card; returns the order id. */
export async function buy(t: TestApp, s: TestStore, productId: string, card: string = TEST_CARDS.success): Promise<string> {
  const session = await createSession(t, s.key, { productId, successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(t, session, { cardNumber: card });
  assert.equal(res.statusCode, 303, res.body);
  t.clock.advance(1000);
  return new URL(String(res.headers.location)).searchParams.get('order_id')!;
}

export async function product(t: TestApp, s: TestStore, body: Record<string, unknown> = {}): Promise<any> {
  return createProduct(t, s, { name: '환불 테스트 상품', price: 10_000, ...body });
}

/** A simulator payment key of the given outcome, as `authorize` would make it (the refund path does not check the MAC). */
export function simKey(amount: number, outcome: 'success' | 'refundfail' | 'refundlost' = 'success'): string {
  return `sim_${outcome}_card_${amount}_${randomBytes(8).toString('hex')}_${randomBytes(12).toString('hex')}`;
}

/**
 * A paid order written straight to the table (fast, for many-order tests), paid on the simulator; its licenses are
 * issued the way checkout does when `licenses` is true.
 */
export async function insertPaidOrder(
  t: Pick<TestApp, 'db' | 'clock' | 'deps'>,
  storeId: string,
  productId: string,
  o: { amount?: number; mode?: Mode; outcome?: 'success' | 'refundfail' | 'refundlost'; status?: 'paid' | 'pending' | 'refunded' | 'failed' | 'canceled'; paidAt?: Date; licenses?: boolean; provider?: 'simulator' | 'toss'; paymentKey?: string; method?: PaymentMethod } = {},
): Promise<string> {
  const id = newId('ord', t.clock);
  const now = t.clock.now();
  const amount = o.amount ?? 10_000;
  const terms = await productTermsJson(t.db, productId);
  await t.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orders')
      .values({
        id, store_id: storeId, mode: o.mode ?? 'test', product_id: productId, product_name: '환불 테스트 상품', plan_id: null, billing_interval: null,
        checkout_session_id: null, status: o.status ?? 'paid', amount, currency: 'KRW', method: o.method ?? 'card', buyer_name: '김구매', buyer_email: 'buyer@example.com',
        buyer_phone: '01012345678', metadata: jsonb(null), coupon: jsonb(null), coupon_id: null, period_start: null, period_end: null,
        paid_at: o.paidAt ?? now, confirmed_at: null, refunded_at: null, refunded_amount: null, provider: o.provider ?? 'simulator',
        provider_payment_key: amount === 0 ? null : (o.paymentKey ?? simKey(amount, o.outcome)), subscription_id: null, subscription_event: null, settlement_id: null,
        terms, created_at: now, updated_at: now,
      })
      .execute();
    if (o.licenses) await issueLicensesForOrder(trx, t.deps, id);
  });
  return id;
}

export function refund(t: TestApp, key: string, orderId: string, body: Record<string, unknown> = {}, idem?: string) {
  return t.app.inject({ method: 'POST', url: `/v1/orders/${orderId}/refund`, headers: post(key, idem), payload: body });
}

export async function orderRow(t: Pick<TestApp, 'db'>, orderId: string) {
  return t.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
}

export async function refundRows(t: Pick<TestApp, 'db'>, orderId: string) {
  return t.db.selectFrom('order_refunds').selectAll().where('order_id', '=', orderId).orderBy('created_at').orderBy('id').execute();
}

export async function eventsOf(t: Pick<TestApp, 'db'>, storeId: string, type: string) {
  return t.db.selectFrom('events').selectAll().where('store_id', '=', storeId).where('type', '=', type).orderBy('created_at').orderBy('id').execute();
}

/** Files an active refund request for the order directly in the table (the requests module builds the real flow). */
export async function insertActiveRequest(t: Pick<TestApp, 'db' | 'clock'>, storeId: string, orderId: string, amount = 1000): Promise<string> {
  const id = newId('rr', t.clock);
  const now = t.clock.now();
  await t.db
    .insertInto('refund_requests')
    .values({
      id, store_id: storeId, mode: 'test', order_id: orderId, subscription_id: null, status: 'requested', amount, currency: 'KRW', reason: '단순 변심',
      statutory: false, requested_at: now, decided_at: null, decision_reason: null, refund_id: null, auto_approve_at: null, source: 'receipt',
      created_at: now, updated_at: now,
    } as any)
    .execute();
  return id;
}
