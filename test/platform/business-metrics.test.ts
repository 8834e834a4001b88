import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { allowLoopbackPort, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { enqueueJob } from '../../src/jobs/queue';
import { GAUGE_CACHE_MS } from '../../src/platform/metrics-registry';
import { createProduct, createSession, payPath, submitPayForm } from '../checkout/factory';
import { refund } from '../refunds/factory';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { createEndpoint, emit, pump } from '../webhooks/setup';
import { dispatchEventsOnce } from '../../src/webhooks/delivery';
import { runBilling } from '../../src/subscriptions/renewal/service';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { startReceiver, type Receiver } from '../webhooks/receiver';

// The commerce_* metrics an operator watches move when the things they count happen: a paid checkout through Toss,
// a decline, a refund, a webhook delivered, a job queued, a renewal charged. Counters are per process, so each check compares with a reading taken
// before. The sample Grafana dashboard names only metrics that /metrics serves.

let fake: FakeToss;
let t: TestApp;
let s: TestStore;
let rx: Receiver;
let liveKey: string;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 10_000 } });
  s = await createTestStore(t);
  await updateModeSettings(t.deps, s.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  liveKey = (await s.newKey({ mode: 'live' })).key;
  rx = await startReceiver({ secrets: () => [secret] });
  allowLoopbackPort(rx.port);
});
after(async () => {
  await rx.close();
  await t.close();
  await fake.close();
});
let secret = '';

async function scrape(): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  return res.body;
}

/** The value of one sample (`name{a="x",b="y"} 3`), labels matched in any order; 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** A live checkout paid through the fake Toss, as the buyer's browser does it: the form, then Toss's success redirect. */
async function paidCheckout(): Promise<string> {
  const product = await createProduct(t, s, { mode: 'live', price: 12_000 });
  const session = await createSession(t, liveKey, { productId: product.id, successUrl: 'https://example.com/ok' });
  assert.equal((await submitPayForm(t, session)).statusCode, 200);
  const row = await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow();
  const orderId = row.pending_order_id;
  const q = new URLSearchParams({ paymentKey: `tpk_metrics_${orderId}`, orderId, amount: '12000' });
  const res = await t.app.inject({ method: 'GET', url: `${payPath(session)}/toss/success?${q}` });
  assert.ok(res.statusCode < 400, res.body);
  const order = await t.db.selectFrom('orders').select('status').where('id', '=', orderId).executeTakeFirstOrThrow();
  assert.equal(order.status, 'paid');
  return orderId;
}

test('a paid checkout and its refund move the payment, refund and Toss latency metrics', async () => {
  const before = await scrape();
  const orderId = await paidCheckout();
  const afterPay = await scrape();
  assert.equal(sample(afterPay, 'commerce_payments_total', { outcome: 'paid' }) - sample(before, 'commerce_payments_total', { outcome: 'paid' }), 1);
  assert.equal(sample(afterPay, 'commerce_payments_total', { outcome: 'failed' }), sample(before, 'commerce_payments_total', { outcome: 'failed' }));
  const confirm = { gateway: 'toss', operation: 'confirm', outcome: 'ok' };
  assert.equal(sample(afterPay, 'commerce_gateway_request_duration_seconds_count', confirm) - sample(before, 'commerce_gateway_request_duration_seconds_count', confirm), 1);
  assert.ok(sample(afterPay, 'commerce_gateway_request_duration_seconds_sum', confirm) > sample(before, 'commerce_gateway_request_duration_seconds_sum', confirm));

  const res = await refund(t, liveKey, orderId, { amount: 2_000 });
  assert.equal(res.statusCode, 200, res.body);
  const afterRefund = await scrape();
  const refunded = { outcome: 'succeeded', source: 'api' };
  assert.equal(sample(afterRefund, 'commerce_refunds_total', refunded) - sample(afterPay, 'commerce_refunds_total', refunded), 1);
  const cancel = { gateway: 'toss', operation: 'cancel', outcome: 'ok' };
  assert.equal(sample(afterRefund, 'commerce_gateway_request_duration_seconds_count', cancel) - sample(afterPay, 'commerce_gateway_request_duration_seconds_count', cancel), 1);
});

test('a declined payment counts as failed, and Toss\'s refusal as an error outcome of confirm', async () => {
  const before = await scrape();
  fake.setMode('decline');
  try {
    const product = await createProduct(t, s, { mode: 'live', price: 5_000 });
    const session = await createSession(t, liveKey, { productId: product.id, successUrl: 'https://example.com/ok' });
    await submitPayForm(t, session);
    const row = await t.db.selectFrom('checkout_sessions').select('pending_order_id').where('id', '=', session.id).executeTakeFirstOrThrow();
    const q = new URLSearchParams({ paymentKey: `tpk_metrics_decline_${row.pending_order_id}`, orderId: row.pending_order_id, amount: '5000' });
    await t.app.inject({ method: 'GET', url: `${payPath(session)}/toss/success?${q}` });
  } finally {
    fake.setMode('ok');
  }
  const after = await scrape();
  assert.equal(sample(after, 'commerce_payments_total', { outcome: 'failed' }) - sample(before, 'commerce_payments_total', { outcome: 'failed' }), 1);
  const refused = { gateway: 'toss', operation: 'confirm', outcome: 'error' };
  assert.equal(sample(after, 'commerce_gateway_request_duration_seconds_count', refused) - sample(before, 'commerce_gateway_request_duration_seconds_count', refused), 1);
});

test('webhook backlog and lag: a pending delivery shows in the backlog (read at most every 5 s), its delivery in the lag histogram', async () => {
  const ep = await createEndpoint(t, s, { url: rx.url('/metrics-hook') });
  secret = ep.secret;
  t.clock.advance(GAUGE_CACHE_MS);
  const before = await scrape();
  const backlog0 = sample(before, 'commerce_webhook_deliveries_pending');
  const lag0 = sample(before, 'commerce_webhook_delivery_lag_seconds_count');

  await emit(t, s.storeId);
  // Fanned out to the endpoint, not yet sent: the backlog grows, once the cached reading has aged.
  await dispatchEventsOnce(t.deps, t.clock.now());
  assert.equal(sample(await scrape(), 'commerce_webhook_deliveries_pending'), backlog0, 'read again only after GAUGE_CACHE_MS');
  t.clock.advance(GAUGE_CACHE_MS);
  assert.equal(sample(await scrape(), 'commerce_webhook_deliveries_pending'), backlog0 + 1);

  t.clock.advance(3_000);
  assert.ok((await pump(t)) >= 1);
  t.clock.advance(GAUGE_CACHE_MS);
  const after = await scrape();
  assert.equal(sample(after, 'commerce_webhook_deliveries_pending'), backlog0);
  assert.equal(sample(after, 'commerce_webhook_delivery_lag_seconds_count') - lag0, 1);
  // Written at T, delivered at T + 3 s + the cache wait: the lag lands in the buckets from 10 s up, not below 5 s.
  assert.equal(sample(after, 'commerce_webhook_delivery_lag_seconds_bucket', { le: '5' }), sample(before, 'commerce_webhook_delivery_lag_seconds_bucket', { le: '5' }));
  assert.equal(sample(after, 'commerce_webhook_delivery_lag_seconds_bucket', { le: '10' }) - sample(before, 'commerce_webhook_delivery_lag_seconds_bucket', { le: '10' }), 1);
});

test('job queue gauges: a due job counts as due, and the oldest due job\'s age grows with the clock', async () => {
  t.clock.advance(GAUGE_CACHE_MS);
  const before = await scrape();
  await t.db.transaction().execute((trx) => enqueueJob(trx, t.clock, { name: 'metrics.test.never-registered', payload: {} }));
  t.clock.advance(60_000);
  const after = await scrape();
  assert.equal(sample(after, 'commerce_jobs_queued', { state: 'due' }) - sample(before, 'commerce_jobs_queued', { state: 'due' }), 1);
  assert.ok(sample(after, 'commerce_jobs_oldest_due_age_seconds') >= 60, after.split('\n').filter((l) => l.startsWith('commerce_jobs')).join('\n'));
});

test('every metric the sample Grafana dashboard queries is served on /metrics', async () => {
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/commerce-dashboard.json', import.meta.url), 'utf8'));
  const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((x: any) => x.expr as string));
  assert.ok(exprs.length >= 8, 'the dashboard has its panels');
  const names = new Set(exprs.flatMap((e) => e.match(/\bcommerce_[a-z_]+/g) ?? []).map((n) => n.replace(/_(bucket|count|sum)$/, '')));
  const text = await scrape();
  const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
  for (const n of names) assert.ok(served.has(n), `${n} (in the dashboard) is on /metrics`);
  for (const must of ['commerce_payments_total', 'commerce_refunds_total', 'commerce_gateway_request_duration_seconds', 'commerce_webhook_delivery_lag_seconds', 'commerce_webhook_deliveries_pending', 'commerce_jobs_queued', 'commerce_jobs_oldest_due_age_seconds', 'commerce_renewals_total', 'commerce_reconciliation_differences_total']) {
    assert.ok(names.has(must), `the dashboard shows ${must}`);
  }
});

test('a renewal charged at the period end counts as charged', async () => {
  const p = await createSubscriptionProduct(t, s);
  const { subscriptionId } = await subscribe(t, s, { productId: p.id });
  const sub = await t.db.selectFrom('subscriptions').select('current_period_end').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
  const before = await scrape();
  t.clock.set(new Date(sub.current_period_end.getTime() + 1_000));
  await runBilling(t.deps, t.clock.now());
  const after = await scrape();
  assert.equal(sample(after, 'commerce_renewals_total', { outcome: 'charged' }) - sample(before, 'commerce_renewals_total', { outcome: 'charged' }), 1);
  assert.equal(sample(after, 'commerce_renewals_total', { outcome: 'failed' }), sample(before, 'commerce_renewals_total', { outcome: 'failed' }));
});
