import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, owner } from '../checkout/factory';
import { literalValues } from '../../src/platform/http/validation';

/**
 * A value outside an enum (TypeBox's union of literals) is refused with the values the field takes, so a caller who
 * typed `month` learns to send `monthly` without opening the reference.
 */
let t: TestApp;
let s: TestStore;
before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
});
after(() => t.close());

const field = (res: { statusCode: number; body: string; json(): any }, name: string): string => {
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().code, 'VALIDATION_FAILED');
  const f = res.json().details.fields.find((x: { field: string }) => x.field === name);
  assert.ok(f, `${name} in ${res.body}`);
  return f.message;
};

test('a checkout body with interval "month" names monthly and yearly', async () => {
  const product = await createSubscriptionProduct(t, s);
  const res = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: product.id, planId: 'basic', interval: 'month' } });
  assert.equal(field(res, 'interval'), '허용된 값이 아닙니다 (monthly, yearly).');
  // A number where the literal string belongs is the same mistake: the values are listed too.
  const num = await t.app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: post(s.key), payload: { productId: product.id, planId: 'basic', interval: 1 } });
  assert.equal(field(num, 'interval'), '허용된 값이 아닙니다 (monthly, yearly).');
});

test('console bodies: a product mode and type outside their values list them', async () => {
  const res = await t.app.inject({ method: 'POST', url: '/admin/v1/products', headers: owner(s), payload: { mode: 'prod', type: 'one-time', name: 'x', pricing: { price: 1000 } } });
  assert.equal(field(res, 'mode'), '허용된 값이 아닙니다 (live, test).');
  assert.match(field(res, 'type'), /^허용된 값이 아닙니다 \(.*one_time.*subscription.*\)\.$/);
});

test("a query enum (the console product list's mode) lists its values too", async () => {
  const res = await t.app.inject({ url: '/admin/v1/products?mode=sandbox', headers: owner(s) });
  assert.equal(field(res, 'mode'), '허용된 값이 아닙니다 (live, test).');
});

test('a union of shapes keeps the general message; literal unions with null name null', () => {
  assert.deepEqual(literalValues([{ const: 'a' }, { const: 'b' }, { type: 'null' }]), ['a', 'b', 'null']);
  assert.deepEqual(literalValues([{ anyOf: [{ const: 'a' }] }, { enum: ['b', 'c'] }]), ['a', 'b', 'c']);
  assert.equal(literalValues([{ const: 'a' }, { type: 'object', properties: {} }]), null);
  assert.equal(literalValues(undefined), null);
});
