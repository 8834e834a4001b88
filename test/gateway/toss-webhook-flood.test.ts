import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { updateModeSettings } from '../../src/stores/service';
import { TossProvider } from '../../src/payments/toss';
import { paymentStatusChangedBody, startFakeToss, type FakeToss } from '../payments/fake-toss';
import { insertPaidOrder, product, refundRows } from '../refunds/factory';

// Forged Toss notifications cannot delay a real one. Toss signs no PAYMENT_STATUS_CHANGED
// (https://docs.tosspayments.com/guides/webhook), so anyone who knows a store's webhook URL can post the documented
// body; each must still get its 200 (Toss retries anything else), cost nothing for a payment that is not ours, and
// leave Toss's real notification to be acted on in seconds. The worker is driven by runOnce() once per second of the
// injected clock, as a polling worker would be.
let fake: FakeToss;
let t: TestApp;
let seq = 0;

before(async () => {
  fake = await startFakeToss({ kind: 'live' });
  t = await createTestApp({ config: { tossApiBaseUrl: fake.baseUrl, tossTimeoutMs: 5_000 } });
});
after(async () => {
  await t.close();
  await fake.close();
});

async function tossStore(): Promise<{ store: TestStore; productId: string; url: string }> {
  const store = await createTestStore(t);
  await updateModeSettings(t.deps, store.storeId, 'live', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
  const p = await product(t, store, { mode: 'live' });
  return { store, productId: p.id, url: `/gateway/toss/webhook/${store.storeId}/live` };
}

/** A live order whose payment Toss approved (confirmed at the fake, as the payment page does). */
async function tossOrder(storeId: string, productId: string, confirm = true): Promise<{ orderId: string; paymentKey: string }> {
  const paymentKey = `tgen_flood_${++seq}`;
  const orderId = await insertPaidOrder(t, storeId, productId, { mode: 'live', amount: 10_000, provider: 'toss', paymentKey });
  if (confirm) {
    const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
    assert.equal((await toss.confirmPayment({ paymentKey, orderId, amount: 10_000, idempotencyKey: `confirm-${paymentKey}` })).status, 'succeeded');
  }
  return { orderId, paymentKey };
}

/** Posts a body as Toss does (JSON, no credentials); Toss expects the 200 whatever the body says. */
async function post(url: string, body: unknown): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  assert.equal(res.statusCode, 200, res.body);
}

const lookupCalls = (from: number) => fake.calls.slice(from).filter((c) => c.method === 'GET' && c.path.startsWith('/v1/payments/'));
const webhookJobs = (storeId: string) =>
  t.db.selectFrom('jobs').select(['id', 'status']).where('name', '=', 'gateway.toss-webhook').where(sql<string>`payload->>'storeId'`, '=', storeId).execute();

test('3,000 forged notifications at 200 a second write fewer than 10 job rows, cost one Toss lookup per payment key at most, and the real one sent among them is acted on within 10 s', async () => {
  t.clock.set('2026-11-01T00:00:00.000Z');
  const { store, productId, url } = await tossStore();
  const { orderId, paymentKey } = await tossOrder(store.storeId, productId);
  const firstCall = fake.calls.length;
  const FORGED = 3_000;
  const PER_SECOND = 200;
  const REAL_AFTER = 1_500; // the real notification comes after half of the flood, and the flood goes on after it
  let sentAt: number | null = null;
  let actedAt: number | null = null;
  for (let i = 0; i < FORGED; ) {
    for (const end = i + PER_SECOND; i < end; i++) {
      const claim = { ...fake.payments.get(paymentKey), status: 'CANCELED', balanceAmount: 0 };
      // Forgeries name payment keys that are nobody's, except a few around the real one that name its payment (with a
      // claim Toss will not confirm) and must share its one lookup.
      const forged = Math.abs(i - REAL_AFTER) <= 20 && i % 5 === 0 ? claim : { ...claim, paymentKey: `tgen_forged_${i}`, orderId: `ord_forged_${i}` };
      await post(url, paymentStatusChangedBody(forged));
      if (i === REAL_AFTER) {
        await post(url, paymentStatusChangedBody(fake.cancelAtToss(paymentKey, 10_000, '상점관리자 취소')));
        sentAt = t.clock.now().getTime();
      }
    }
    await t.deps.worker.runOnce();
    if (actedAt === null && (await refundRows(t, orderId)).length > 0) actedAt = t.clock.now().getTime();
    t.clock.advance(1_000);
  }
  for (let s = 0; s < 15 && actedAt === null; s++) {
    await t.deps.worker.runOnce();
    if ((await refundRows(t, orderId)).length > 0) actedAt = t.clock.now().getTime();
    t.clock.advance(1_000);
  }
  const rows = await webhookJobs(store.storeId);
  const perKey = new Map<string, number>();
  for (const c of lookupCalls(firstCall)) perKey.set(c.path, (perKey.get(c.path) ?? 0) + 1);
  const worst = Math.max(0, ...perKey.values());
  const delay = sentAt !== null && actedAt !== null ? actedAt - sentAt : null;
  console.log(`flood: job rows ${rows.length}, Toss lookups ${lookupCalls(firstCall).length} (at most ${worst} per key), real one acted on after ${delay === null ? 'never' : `${delay / 1000} s`}`);

  assert.ok(rows.length < 10, `fewer than 10 job rows for 3,001 notifications (${rows.length})`);
  assert.ok(worst <= 1, `Toss is asked at most once per payment key (${worst})`);
  assert.ok(perKey.size <= 1, `no Toss call for a payment key that is not ours (${[...perKey.keys()].slice(0, 3).join(', ')})`);
  assert.notEqual(delay, null, 'the real notification was acted on');
  assert.ok(delay! <= 10_000, `within 10 s (${delay! / 1000} s)`);
  const refunds = await refundRows(t, orderId);
  assert.deepEqual(refunds.map((r) => [r.source, r.amount, r.status]), [['gateway', 10_000, 'succeeded']], 'the cancel at Toss is recorded once');
});

test('one store\'s burst of lookups cannot starve another store\'s: the worker takes the stores in turn', async () => {
  const a = await tossStore();
  const b = await tossStore();
  // Store A: 60 notices, each naming one of its own orders (a mass cancel, or forgeries naming orders that exist).
  const mine = [];
  for (let i = 0; i < 60; i++) mine.push(await tossOrder(a.store.storeId, a.productId, false));
  for (const o of mine) await post(a.url, paymentStatusChangedBody({ ...fake.payments.get(mine[0].paymentKey), paymentKey: o.paymentKey, orderId: o.orderId, status: 'CANCELED' }));
  // Store B: Toss's real notification, a moment later.
  t.clock.advance(1_000);
  const real = await tossOrder(b.store.storeId, b.productId);
  await post(b.url, paymentStatusChangedBody(fake.cancelAtToss(real.paymentKey, 4_000, '부분 취소')));

  const firstCall = fake.calls.length;
  await t.deps.worker.runOnce();
  const order = lookupCalls(firstCall).map((c) => c.path);
  const position = order.indexOf(`/v1/payments/${real.paymentKey}`);
  assert.equal(order.length, 61, 'each notice looked up once');
  assert.ok(position >= 0 && position < 2, `store B's lookup is among the first two Toss calls, not behind store A's 60 (position ${position})`);
  assert.deepEqual((await refundRows(t, real.orderId)).map((r) => [r.source, r.amount]), [['gateway', 4_000]]);
});
