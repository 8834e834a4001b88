import assert from 'node:assert/strict';
import { post, type TestApp, type TestStore } from '../helpers/app';

/** Small factories shared by the catalog, checkout, orders and pages tests. */

export const owner = (s: Pick<TestStore, 'ownerToken'>) => ({ authorization: `Bearer ${s.ownerToken}` });

/**
 * Creates a product through the console. `price` and `plans` are shorthands for `pricing.price` and `pricing.plans`
 * (the console takes prices in the Product's own shape); `price: undefined` leaves the default price out.
 */
export async function createProduct(t: TestApp, s: TestStore, body: Record<string, unknown> = {}): Promise<any> {
  const { price, plans, ...rest } = { price: 15_000 as unknown, ...body } as Record<string, unknown>;
  const pricing = (body.pricing as Record<string, unknown> | undefined) ?? { ...(price !== undefined ? { price } : {}), ...(plans !== undefined ? { plans } : {}) };
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/products',
    headers: owner(s),
    payload: { mode: 'test', type: 'one_time', name: '전자책', ...rest, pricing },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export async function createSubscriptionProduct(t: TestApp, s: TestStore, body: Record<string, unknown> = {}): Promise<any> {
  return createProduct(t, s, {
    type: 'subscription',
    name: '멤버십',
    price: undefined,
    plans: [{ id: 'basic', name: '베이직', monthlyPrice: 9_900, yearlyPrice: 99_000 }],
    ...body,
  });
}

export async function createCoupon(t: TestApp, s: TestStore, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/admin/v1/coupons',
    headers: owner(s),
    payload: { mode: 'test', code: 'SAVE10', name: '10% 할인', discountType: 'percent', discountValue: 10, ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

export function createSessionRaw(t: TestApp, key: string, body: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(key), payload: body });
}

export async function createSession(t: TestApp, key: string, body: Record<string, unknown>): Promise<any> {
  const res = await createSessionRaw(t, key, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** The path part of a session's payment-page url (`/pay/cs_…`). */
export const payPath = (session: { url: string }) => new URL(session.url).pathname;

export const BUYER = { buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '010-1234-5678' };

/**
 * The required agreement checkboxes, ticked (the payment page refuses to pay without them), and a subscription's
 * separate recurring-charge consent (ignored on one-time products).
 */
export const AGREED = { agreeTerms: 'on', agreePrivacy: 'on', agreeThirdParty: 'on', agreeRecurring: 'on' };

/** Submits the payment form the way a browser without JavaScript does (urlencoded, agreements ticked, the pay button pressed). */
export function submitPayForm(t: TestApp, session: { url: string }, fields: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: payPath(session),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...BUYER, method: 'card', action: 'pay', ...AGREED, ...fields }).toString(),
  });
}

export function formPost(t: TestApp, url: string, fields: Record<string, string>) {
  return t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
}

/** The value attribute of the input named `name` in a rendered page. */
export function inputValue(page: string, name: string): string | null {
  const m = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(page);
  return m ? m[1] : null;
}
