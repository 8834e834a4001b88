import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

/** Follows a local $ref of the document, if any. */
const deref = (doc: any, s: any): any => (s?.$ref ? s.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc) : s);

test('OpenAPI: POST /v1/orders/{id}/refund documents its request body, its { refund, order } answer and every error code', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const op = doc.paths['/v1/orders/{id}/refund'].post;
  const body = deref(doc, op.requestBody.content['application/json'].schema);
  assert.deepEqual(Object.keys(body.properties).sort(), ['amount', 'keepLicenses', 'reason']);
  assert.equal(body.additionalProperties, false);
  assert.equal(op.requestBody.required ?? false, true);
  const ok = deref(doc, op.responses['200'].content['application/json'].schema);
  assert.deepEqual(Object.keys(ok.properties).sort(), ['order', 'refund']);
  const refund = deref(doc, ok.properties.refund);
  for (const f of ['id', 'amount', 'currency', 'reason', 'refundedAt', 'status']) assert.ok(refund.properties[f], f);
  assert.ok(deref(doc, ok.properties.order).properties.refundedAmount);
  for (const c of ['ORDER_NOT_FOUND', 'REFUND_AMOUNT_INVALID', 'REFUND_NOT_PAID', 'REFUND_SETTLED', 'REFUND_REQUEST_PENDING', 'REFUND_IN_PROGRESS', 'REFUND_NONE_LEFT', 'REFUND_EXCEEDS', 'PG_REFUND_FAILED', 'PG_REFUND_AMBIGUOUS']) {
    assert.ok(op['x-error-codes'].includes(c), c);
  }
  assert.match(op.responses['502'].description, /PG_REFUND_AMBIGUOUS/);
  assert.match(op.description, /REFUND_AMOUNT_INVALID.*REFUND_NOT_PAID.*REFUND_SETTLED.*REFUND_REQUEST_PENDING.*REFUND_IN_PROGRESS.*REFUND_NONE_LEFT.*REFUND_EXCEEDS/s);
  const ev = doc.webhooks['order.refunded'].post.requestBody.content['application/json'].schema.properties.data;
  assert.deepEqual(Object.keys(ev.properties).sort(), ['licensesRevoked', 'order', 'refund']);
});

test('OpenAPI (console): refunds and settlement rounds', async () => {
  const doc = (await t.app.inject({ url: '/admin/v1/openapi.json', headers: { authorization: 'Bearer x' } })).json();
  assert.ok(doc.paths['/admin/v1/refunds'].get);
  assert.ok(doc.paths['/admin/v1/settlements'].get);
  assert.ok(doc.paths['/admin/v1/settlements'].post.requestBody);
  assert.ok(doc.paths['/admin/v1/settlements/{id}'].get);
});
