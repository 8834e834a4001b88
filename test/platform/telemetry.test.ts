import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { installTracing, tracing, traceLogMixin, withSpan, type SpanAttributes, type Tracing } from '../../src/platform/telemetry';
import { TossProvider } from '../../src/payments/toss';
import { startFakeToss, type FakeToss } from '../payments/fake-toss';
import { createEndpoint, emit, pump } from '../webhooks/setup';
import { startReceiver, type Receiver } from '../webhooks/receiver';

// The service's own spans, seen through a recording stand-in for the OpenTelemetry implementation (src/tracing.ts
// installs the real one; test/platform/tracing.test.ts runs it end to end): which operations open a span, with what
// attributes and outcome. Without an implementation every call runs its function and nothing else.

interface Recorded {
  name: string;
  kind: string;
  attributes: SpanAttributes;
  failed: string | null;
}
const recorded: Recorded[] = [];
const recorder: Tracing = {
  async withSpan(name, attributes, fn, kind = 'internal') {
    const r: Recorded = { name, kind, attributes: { ...attributes }, failed: null };
    recorded.push(r);
    return fn({ setAttributes: (a) => Object.assign(r.attributes, a), fail: (m) => (r.failed = m) });
  },
  ids: () => ({ trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) }),
  nameServerSpan() {},
  flush: async () => {},
};

let fake: FakeToss;
let t: TestApp;
let s: TestStore;
let rx: Receiver;

before(async () => {
  fake = await startFakeToss({ kind: 'test' });
  t = await createTestApp();
  s = await createTestStore(t);
  rx = await startReceiver({ secrets: () => [secret] });
});
after(async () => {
  installTracing(undefined as unknown as Tracing);
  await rx.close();
  await t.close();
  await fake.close();
});
let secret = '';

test('tracing off: withSpan just runs its function, and logs get no trace fields', async () => {
  assert.equal(tracing(), null);
  assert.equal(await withSpan('x', {}, async (span) => (span.setAttributes({ a: 1 }), span.fail('no'), 42)), 42);
  assert.equal(traceLogMixin(), undefined);
});

test('tracing on: log lines carry the active trace_id and span_id', () => {
  installTracing(recorder);
  const lines: string[] = [];
  const log = pino({ mixin: traceLogMixin() }, { write: (l: string) => lines.push(l) });
  log.info('hello');
  const line = JSON.parse(lines[0]!);
  assert.equal(line.trace_id, 'a'.repeat(32));
  assert.equal(line.span_id, 'b'.repeat(16));
});

test('a Toss call is a client span named after its operation, with its outcome; a refusal marks it failed', async () => {
  installTracing(recorder);
  recorded.length = 0;
  const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
  assert.equal((await toss.confirmPayment({ paymentKey: 'tpk_span_1', orderId: 'ord_span_1', amount: 1000, idempotencyKey: 'i-span-1' })).status, 'succeeded');
  fake.setMode('decline');
  try {
    assert.equal((await toss.confirmPayment({ paymentKey: 'tpk_span_2', orderId: 'ord_span_2', amount: 1000, idempotencyKey: 'i-span-2' })).status, 'failed');
  } finally {
    fake.setMode('ok');
  }
  const spans = recorded.filter((r) => r.name.startsWith('toss '));
  assert.deepEqual(
    spans.map((r) => [r.name, r.kind, r.attributes['gateway.operation'], r.attributes['gateway.outcome'], r.failed]),
    [
      ['toss confirm', 'client', 'confirm', 'ok', null],
      ['toss confirm', 'client', 'confirm', 'error', 'REJECT_CARD_PAYMENT'],
    ],
  );
  assert.ok(!JSON.stringify(spans).includes(fake.secretKey), 'no secret in a span');
});

test('a webhook delivery is a client span with its delivery id, event type, attempt and status code', async () => {
  installTracing(recorder);
  const ep = await createEndpoint(t, s, { url: rx.url('/span') });
  secret = ep.secret;
  await emit(t, s.storeId);
  recorded.length = 0;
  assert.ok((await pump(t)) >= 1);
  const span = recorded.find((r) => r.name === 'webhook deliver');
  assert.ok(span, recorded.map((r) => r.name).join(', '));
  assert.equal(span.kind, 'client');
  assert.match(String(span.attributes['webhook.delivery_id']), /^whd_/);
  assert.equal(span.attributes['webhook.event_type'], 'order.paid');
  assert.equal(span.attributes['webhook.attempt'], 1);
  assert.equal(span.attributes['http.response.status_code'], 200);
  assert.equal(span.failed, null);
  // The statements around it, on PGlite, are spans too while one is active (ids() answers here).
  if (!process.env.TEST_DATABASE_URL) assert.ok(recorded.some((r) => r.name.startsWith('pglite.query:')), 'PGlite statements are traced');
});
