import assert from 'node:assert/strict';
import { bearer, createTestApp, createTestStore, post, type TestApp, type TestStore } from '../../helpers/app';
import { createProduct, createSession, submitPayForm } from '../../checkout/factory';
import { TEST_CARDS } from '../../../src/payments';

/** Small helpers shared by the refund-request tests: a store, paid orders through the real checkout, the receipt page. */

export interface Ctx {
  t: TestApp;
  s: TestStore;
}

export async function setup(opts: Parameters<typeof createTestApp>[0] = {}): Promise<Ctx> {
  const t = await createTestApp(opts);
  const s = await createTestStore(t);
  return { t, s };
}

export async function product(c: Ctx, body: Record<string, unknown> = {}): Promise<any> {
  return createProduct(c.t, c.s, { name: '전자책', price: 10_000, ...body });
}

/** Pays a checkout of `productId` on the simulator; returns the order as the API shows it. */
export async function buy(c: Ctx, productId: string, card: string = TEST_CARDS.success): Promise<any> {
  const session = await createSession(c.t, c.s.key, { productId, successUrl: 'https://example.com/ok' });
  const res = await submitPayForm(c.t, session, { cardNumber: card });
  assert.equal(res.statusCode, 303, res.body);
  const orderId = new URL(String(res.headers.location)).searchParams.get('order_id')!;
  return getOrder(c, orderId);
}

export async function getOrder(c: Ctx, orderId: string): Promise<any> {
  const res = await c.t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(c.s.key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The path and token of an order's receipt link. */
export function receipt(order: { receiptUrl: string }): { path: string; token: string } {
  const u = new URL(order.receiptUrl);
  return { path: u.pathname, token: u.searchParams.get('t')! };
}

export function form(c: Ctx, url: string, fields: Record<string, string>) {
  return c.t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
}

/** The buyer files a request on the receipt page; returns the raw answer. */
export function fileRaw(c: Ctx, order: { receiptUrl: string }, fields: { amount?: string; reason?: string } = {}) {
  const r = receipt(order);
  return form(c, `${r.path}/refund-request`, { t: r.token, amount: fields.amount ?? '', reason: fields.reason ?? '' });
}

/** Files a request (must succeed) and returns it as the API shows it. */
export async function file(c: Ctx, order: { id: string; receiptUrl: string }, fields: { amount?: string; reason?: string } = {}): Promise<any> {
  const res = await fileRaw(c, order, fields);
  assert.equal(res.statusCode, 303, res.body);
  const list = await c.t.app.inject({ url: `/v1/refund-requests?orderId=${order.id}&status=requested`, headers: bearer(c.s.key) });
  assert.equal(list.statusCode, 200, list.body);
  const [rr] = list.json().data;
  assert.ok(rr, 'the filed request is listed');
  return rr;
}

export function act(c: Ctx, id: string, action: 'approve' | 'hold' | 'reject', body?: Record<string, unknown>, key?: string) {
  return c.t.app.inject({ method: 'POST', url: `/v1/refund-requests/${id}/${action}`, headers: post(key ?? c.s.key), payload: body });
}

export async function getRequest(c: Ctx, id: string): Promise<any> {
  const res = await c.t.app.inject({ url: `/v1/refund-requests/${id}`, headers: bearer(c.s.key) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

export async function events(c: Ctx, type: string): Promise<any[]> {
  const rows = await c.t.db.selectFrom('events').select(['type', 'data']).where('store_id', '=', c.s.storeId).where('type', '=', type).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => r.data);
}

export const DAY = 24 * 60 * 60 * 1000;
