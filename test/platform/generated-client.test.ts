// @slow: generates a client and compiles it with tsc (npm run test:slow)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestApp, type TestApp } from '../helpers/app';

// A seller's developer generates a typed client from GET /v1/openapi.json (openapi-typescript + openapi-fetch) and
// calls the refund, refund-request, subscription and portal operations exactly as the spec shows. The calls must
// compile, and reading the answers' documented fields must compile too: an operation without its request or
// response body in the document fails here.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => {
  await t.close();
});

const CALLS = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({ baseUrl: 'http://localhost:3000', headers: { Authorization: 'Bearer svc_test_x' } });
const idem = { 'Idempotency-Key': 'k-1' };

export async function calls(): Promise<void> {
  const refund = await client.POST('/v1/orders/{id}/refund', { params: { path: { id: 'ord_1' }, header: idem }, body: { amount: 5000, reason: '단순 변심' } });
  if (refund.data) {
    const id: string = refund.data.refund.id;
    const amount: number = refund.data.refund.amount;
    const refunded: number | null | undefined = refund.data.order.refundedAmount;
    void id; void amount; void refunded;
  }
  await client.POST('/v1/orders/{id}/refund', { params: { path: { id: 'ord_1' }, header: idem }, body: {} });

  const list = await client.GET('/v1/refund-requests', { params: { query: { page: 1, limit: 20 } } });
  if (list.data) {
    const total: number = list.data.total;
    const first: string | undefined = list.data.data[0]?.id;
    void total; void first;
  }
  const one = await client.GET('/v1/refund-requests/{id}', { params: { path: { id: 'rr_1' } } });
  if (one.data) {
    const status: string = one.data.status;
    void status;
  }
  await client.POST('/v1/refund-requests/{id}/approve', { params: { path: { id: 'rr_1' }, header: idem }, body: {} });
  await client.POST('/v1/refund-requests/{id}/hold', { params: { path: { id: 'rr_1' }, header: idem }, body: { reason: '사용 내역 확인 중' } });
  await client.POST('/v1/refund-requests/{id}/reject', { params: { path: { id: 'rr_1' }, header: idem }, body: { reason: '환불 기간 경과' } });

  const subs = await client.GET('/v1/subscriptions', { params: { query: { page: 1, limit: 20 } } });
  if (subs.data) {
    const s = subs.data.data[0];
    const end: string | undefined = s?.currentPeriodEnd;
    void end;
  }
  await client.GET('/v1/subscriptions/{id}', { params: { path: { id: 'sub_1' } } });
  const preview = await client.GET('/v1/subscriptions/{id}/cancel-preview', { params: { path: { id: 'sub_1' } } });
  if (preview.data) {
    const amount: number = preview.data.immediate.refundAmount;
    const requiresApproval: boolean = preview.data.immediate.requiresApproval;
    const effectiveAt: string = preview.data.periodEnd.effectiveAt;
    void amount; void requiresApproval; void effectiveAt;
  }
  const cancel = await client.POST('/v1/subscriptions/{id}/cancel', { params: { path: { id: 'sub_1' }, header: idem }, body: { timing: 'immediate', reason: '더 이상 사용하지 않음' } });
  if (cancel.data) {
    const refunded: string[] = cancel.data.refundedOrderIds;
    const timing: 'period_end' | 'immediate' = cancel.data.timing;
    void refunded; void timing;
  }
  await client.POST('/v1/subscriptions/{id}/cancel', { params: { path: { id: 'sub_1' }, header: idem }, body: { timing: 'period_end' } });
  const portal = await client.POST('/v1/portal-sessions', {
    params: { header: idem },
    body: { buyerEmail: 'buyer@example.com', subscriptionId: 'sub_1', returnUrl: 'https://example.com/account' },
  });
  if (portal.data) {
    const url: string = portal.data.url;
    void url;
  }
}
`;

test('a client generated from the OpenAPI document compiles the spec calls of refunds, refund requests, subscriptions and the portal', async () => {
  const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
  const ast = await openapiTS(doc);
  const dir = mkdtempSync(join(ROOT, '.generated-client-'));
  try {
    writeFileSync(join(dir, 'api.d.ts'), astToString(ast));
    writeFileSync(join(dir, 'calls.ts'), CALLS);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const res = spawnSync(
      process.execPath,
      [tsc, '--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', join(dir, 'calls.ts')],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(res.status, 0, `the generated client does not compile the spec calls:\n${res.stdout}${res.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
