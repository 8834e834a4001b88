import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../helpers/app';
import { deref } from '../../helpers/openapi';

let t: TestApp;
let doc: any;
before(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
});
after(async () => {
  await t.close();
});

const ref = (s: any) => s?.$ref ?? s?.title ?? s?.type;

test('the five refund-request operations document their request and response bodies', () => {
  const ops = {
    list: doc.paths['/v1/refund-requests'].get,
    get: doc.paths['/v1/refund-requests/{id}'].get,
    approve: doc.paths['/v1/refund-requests/{id}/approve'].post,
    hold: doc.paths['/v1/refund-requests/{id}/hold'].post,
    reject: doc.paths['/v1/refund-requests/{id}/reject'].post,
  };
  for (const [name, op] of Object.entries<any>(ops)) {
    const ok = op.responses['200'].content['application/json'].schema;
    assert.ok(ok.properties || ok.$ref, `${name} documents its answer`);
    assert.notEqual(ok.title, 'Pending', name);
  }
  const body = (o: any, status = '200') => deref(doc, o.responses[status].content['application/json'].schema);
  assert.deepEqual(Object.keys(body(ops.list).properties).sort(), ['data', 'limit', 'page', 'total']);
  assert.deepEqual(ops.list.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name).sort(), ['limit', 'orderId', 'page', 'status']);
  const record = body(ops.get);
  for (const f of ['id', 'mode', 'orderId', 'subscriptionId', 'status', 'amount', 'currency', 'reason', 'statutory', 'requestedAt', 'decidedAt', 'decisionReason', 'refundId', 'autoApproveAt']) {
    assert.ok(record.properties[f], f);
    assert.ok(record.required.includes(f), `${f} is always present`);
  }
  const statuses = JSON.stringify(record.properties.status);
  for (const st of ['requested', 'held', 'approved', 'rejected', 'canceled']) assert.ok(statuses.includes(`"${st}"`), st);
  const approveBody = deref(doc, ops.approve.requestBody.content['application/json'].schema);
  assert.deepEqual(Object.keys(approveBody.properties).sort(), ['amount', 'confirmAmount', 'reason']);
  assert.deepEqual(Object.keys(body(ops.approve).properties).sort(), ['order', 'refund', 'refundRequest']);
  for (const op of [ops.hold, ops.reject]) {
    assert.deepEqual(Object.keys(deref(doc, op.requestBody.content['application/json'].schema).properties), ['reason']);
    assert.equal(ref(op.responses['200'].content['application/json'].schema), ref(ops.get.responses['200'].content['application/json'].schema));
    assert.deepEqual(body(op), record);
    assert.match(op.responses['400'].description, /REFUND_REASON_REQUIRED/);
    assert.match(op.responses['409'].description, /REFUND_STATUTORY_LOCKED/);
  }
  for (const code of ['REFUND_AMOUNT_MISMATCH', 'REFUND_AMOUNT_EXCEEDS', 'REFUND_REQUEST_NOT_ACTIONABLE', 'REFUND_STATUTORY_LOCKED', 'PG_REFUND_AMBIGUOUS']) {
    assert.ok(ops.approve['x-error-codes'].includes(code), code);
  }
  assert.match(ops.approve.description, /REFUND_REQUEST_NOT_FOUND → REFUND_AMOUNT_INVALID [^→]*→ REFUND_REQUEST_NOT_ACTIONABLE/);
});

test('the Order documents receiptUrl, and the webhooks section carries refund_request.created and refund_request.updated', () => {
  const order = deref(doc, doc.paths['/v1/orders/{id}'].get.responses['200'].content['application/json'].schema);
  assert.equal(order.properties.receiptUrl.type, 'string');
  assert.ok(order.required.includes('receiptUrl'));
  const paid = doc.webhooks['order.paid'].post.requestBody.content['application/json'].schema.properties.data;
  assert.ok(paid.properties.receiptUrl, 'order.paid carries the receipt link');
  const created = doc.webhooks['refund_request.created'].post.requestBody.content['application/json'].schema.properties.data;
  assert.ok(created.properties.statutory);
  const updated = doc.webhooks['refund_request.updated'].post.requestBody.content['application/json'].schema.properties.data;
  assert.ok(updated.properties.previousStatus);
  assert.ok(updated.properties.refundId);
});

test('the seller console document lists the refund-request operations', async () => {
  const admin = (await t.app.inject({ url: '/admin/v1/openapi.json' })).json();
  for (const p of ['/admin/v1/refund-requests', '/admin/v1/refund-requests/{id}', '/admin/v1/refund-requests/{id}/approve', '/admin/v1/refund-requests/{id}/hold', '/admin/v1/refund-requests/{id}/reject']) {
    assert.ok(admin.paths[p], p);
  }
});
