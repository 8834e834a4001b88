// Toss notifications under a flood: forged PAYMENT_STATUS_CHANGED bodies are posted to a store's Toss webhook URL from
// this (the load generator's) process at BENCH_TOSS_FLOOD_RATE a second (200) for BENCH_TOSS_FLOOD_SECONDS (20); halfway,
// the payment is canceled at Toss (the local fake of test/payments/fake-toss.ts, which the server is pointed at) and
// Toss's real notification is posted among the forgeries. Reported: how long after its 200 the real one was acted on
// (the order's refundedAmount read back through the API, polled every 20 ms), the forgeries' answers and latency, and the
// Toss lookups the flood cost. The server's own worker does the lookups (production defaults: it polls every second).
// `npm run bench toss-flood`.
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { cpuMs, startServer } from './lib';
import { createStore, updateModeSettings } from '../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../src/stores/api-keys';
import { createProduct } from '../src/catalog/service';
import { jsonb } from '../src/db';
import { newId } from '../src/platform/ids';
import { TossProvider } from '../src/payments/toss';
import { paymentStatusChangedBody, startFakeToss } from '../test/payments/fake-toss';

const RATE = Number(process.env.BENCH_TOSS_FLOOD_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_TOSS_FLOOD_SECONDS ?? 20);
const AMOUNT = 10_000;

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);

export default async function run(): Promise<void> {
  const fake = await startFakeToss({ kind: 'test' });
  const paymentKey = `tgen_bench_${randomBytes(6).toString('hex')}`;
  const { server, seeded } = await startServer(
    async (deps) => {
      const { store } = await createStore(deps, { name: 'bench', publicContactVerified: true });
      await updateModeSettings(deps, store.id, 'test', { paymentProvider: 'toss', tossClientKey: fake.clientKey, tossSecretKey: fake.secretKey });
      const product = await createProduct(deps, store.id, { mode: 'test', type: 'one_time', name: '벤치 상품', pricing: { price: AMOUNT } });
      const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'bench', scopes: ALL_SCOPES });
      const orderId = newId('ord', deps.clock);
      const now = deps.clock.now();
      await deps.db
        .insertInto('orders')
        .values({
          id: orderId, store_id: store.id, mode: 'test', product_id: product.id, product_name: '벤치 상품', plan_id: null, billing_interval: null,
          checkout_session_id: null, status: 'paid', amount: AMOUNT, currency: 'KRW', method: 'card', buyer_name: '김구매', buyer_email: 'buyer@example.com',
          buyer_phone: '01012345678', metadata: jsonb(null), coupon: jsonb(null), coupon_id: null, period_start: null, period_end: null, paid_at: now,
          confirmed_at: null, refunded_at: null, refunded_amount: null, provider: 'toss', provider_payment_key: paymentKey, subscription_id: null,
          subscription_event: null, settlement_id: null, created_at: now, updated_at: now,
          terms: jsonb({ version: 'bench', refundDays: 7, penaltyRate: 10, clawbackDisclosed: false, trialOffered: false, usageRestrictionMarked: false, licensed: false, plan: null }),
        })
        .execute();
      return { storeId: store.id, orderId, key: secret };
    },
    { TOSS_API_BASE_URL: fake.baseUrl },
  );
  try {
    // Toss approved the payment (the payment page's confirm, done here against the fake).
    const toss = new TossProvider({ secretKey: fake.secretKey, baseUrl: fake.baseUrl });
    const confirmed = await toss.confirmPayment({ paymentKey, orderId: seeded.orderId, amount: AMOUNT, idempotencyKey: `confirm-${paymentKey}` });
    if (confirmed.status !== 'succeeded') throw new Error(`confirm at the fake: ${confirmed.status}`);
    const url = `${server.url}/gateway/toss/webhook/${seeded.storeId}/test`;
    // A connection error (e.g. a keep-alive socket the server closed as it was reused) counts as status 0, not a crash.
    const post = async (body: unknown) => {
      const t0 = performance.now();
      try {
        const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await r.arrayBuffer();
        return { status: r.status, ms: performance.now() - t0 };
      } catch {
        return { status: 0, ms: performance.now() - t0 };
      }
    };
    const refunded = async () => {
      const r = await fetch(`${server.url}/v1/orders/${seeded.orderId}`, { headers: { authorization: `Bearer ${seeded.key}` } });
      return ((await r.json()) as { refundedAmount: number | null }).refundedAmount ?? 0;
    };
    const lookups = () => fake.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/v1/payments/')).length;
    const lookupsBefore = lookups();
    const cpuBefore = cpuMs(server.pid);

    const latencies: number[] = [];
    let non200 = 0;
    let connectionErrors = 0;
    let sent = 0;
    const started = performance.now();
    const inflight = new Set<Promise<void>>();
    let real: Promise<{ sentAfterMs: number; actedMs: number | null }> | null = null;
    const claim = { ...fake.payments.get(paymentKey), status: 'CANCELED', balanceAmount: 0 };
    while (performance.now() - started < SECONDS * 1000) {
      // Paced: the n-th forgery leaves at n / RATE seconds.
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      for (; sent < due; sent++) {
        const i = sent;
        const p = post(paymentStatusChangedBody({ ...claim, paymentKey: `tgen_forged_${i}_${randomBytes(4).toString('hex')}`, orderId: `ord_forged_${i}` })).then((r) => {
          latencies.push(r.ms);
          if (r.status === 0) connectionErrors++;
          else if (r.status !== 200) non200++;
        });
        inflight.add(p);
        void p.finally(() => inflight.delete(p));
      }
      if (!real && performance.now() - started >= (SECONDS * 1000) / 2) {
        real = (async () => {
          const body = paymentStatusChangedBody(fake.cancelAtToss(paymentKey, AMOUNT, '상점관리자 취소'));
          // Toss resends what it did not get a 200 for (here at once, as it would later).
          let r = await post(body);
          for (let tries = 1; r.status !== 200 && tries < 5; tries++) r = await post(body);
          if (r.status !== 200) throw new Error(`the real notification was answered ${r.status}`);
          const answered = performance.now();
          const sentAfterMs = answered - started;
          while (performance.now() - answered < 120_000) {
            if ((await refunded()) === AMOUNT) return { sentAfterMs, actedMs: performance.now() - answered };
            await new Promise((res) => setTimeout(res, 20));
          }
          return { sentAfterMs, actedMs: null };
        })();
      }
      await new Promise((res) => setTimeout(res, 5));
    }
    await Promise.all(inflight);
    const elapsed = (performance.now() - started) / 1000;
    const result = await real!;
    const cpu = cpuMs(server.pid) - cpuBefore;
    console.log(`database: ${server.kind}; forged PAYMENT_STATUS_CHANGED posted from this process at ${RATE}/s for ${SECONDS} s`);
    console.log(`forged sent ${sent} (${(sent / elapsed).toFixed(0)}/s), non-200 answers ${non200}, connection errors ${connectionErrors}, answer p50 ${pct(latencies, 50).toFixed(1)} ms / p99 ${pct(latencies, 99).toFixed(1)} ms`);
    console.log(`real notification posted ${(result.sentAfterMs / 1000).toFixed(1)} s into the flood, acted on (refund visible in the API) ${result.actedMs === null ? 'NOT within 120 s' : `${(result.actedMs / 1000).toFixed(2)} s`} after its 200`);
    console.log(`Toss lookups during the flood: ${lookups() - lookupsBefore}; server CPU ${(cpu / Math.max(1, sent)).toFixed(3)} ms per forged notification`);
  } finally {
    await server.close();
    await fake.close();
  }
}
