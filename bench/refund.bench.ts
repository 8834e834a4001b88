// POST /v1/orders/{id}/refund on the simulator, against the reference INSERT route, on one server process. Every
// request refunds a different seeded paid order in full (lock, checks, pending record, simulated gateway call,
// outcome with its order.refunded event, the idempotency record), so no request is refused for business reasons.
// `npm run bench refund`; BENCH_REFUND_ORDERS (30000) orders are seeded; BENCH_SECONDS (5), BENCH_CONNECTIONS (10).
import type { SaleTerms } from '../src/orders/terms';
import { randomBytes, randomUUID } from 'node:crypto';
import { CONNECTIONS, SECONDS, drive, printHeader, printRow, rssMb, startServer } from './lib';
import { createStore, updateModeSettings } from '../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../src/stores/api-keys';
import { createProduct } from '../src/catalog/service';
import { jsonb } from '../src/db';
import { newId } from '../src/platform/ids';
import type { AppDeps } from '../src/deps';

const ORDERS = Number(process.env.BENCH_REFUND_ORDERS ?? 30_000);

/** Paid orders written in batches, each with a simulator payment key its refund will be accepted for. */
async function seedOrders(deps: AppDeps, storeId: string, productId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  const now = deps.clock.now();
  for (let i = 0; i < n; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, n - i) }, () => {
      const id = newId('ord', deps.clock);
      ids.push(id);
      return {
        id, store_id: storeId, mode: 'test' as const, product_id: productId, product_name: '벤치 상품', plan_id: null, billing_interval: null,
        checkout_session_id: null, status: 'paid' as const, amount: 15_000, currency: 'KRW' as const, method: 'card' as const, buyer_name: '김구매',
        buyer_email: 'buyer@example.com', buyer_phone: '01012345678', metadata: jsonb(null), coupon: jsonb(null), coupon_id: null, period_start: null,
        period_end: null, paid_at: now, confirmed_at: null, refunded_at: null, refunded_amount: null, provider: 'simulator' as const,
        provider_payment_key: `sim_success_card_15000_${randomBytes(8).toString('hex')}_${randomBytes(12).toString('hex')}`,
        subscription_id: null, subscription_event: null, settlement_id: null, created_at: now, updated_at: now,
        terms: jsonb(BENCH_TERMS),
      };
    });
    await deps.db.insertInto('orders').values(rows).execute();
  }
  return ids;
}

const BENCH_TERMS: SaleTerms = { version: 'bench', refundDays: 7, penaltyRate: 10, clawbackDisclosed: false, trialOffered: false, usageRestrictionMarked: false, licensed: false, plan: null };

export default async function run(): Promise<void> {
  const { server, seeded } = await startServer(async (deps) => {
    const { store } = await createStore(deps, { name: 'bench', publicContactVerified: true });
    await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['example.com'], paymentProvider: 'simulator' });
    const product = await createProduct(deps, store.id, { mode: 'test', type: 'one_time', name: '벤치 상품', pricing: { price: 15_000 } });
    const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'bench', scopes: ALL_SCOPES });
    const orderIds = await seedOrders(deps, store.id, product.id, ORDERS);
    return { storeId: store.id, key: secret, orderIds };
  });
  try {
    const { url } = server;
    const auth = { authorization: `Bearer ${seeded.key}` };
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ reason: '벤치마크 환불' });
    let next = 0;
    const take = () => seeded.orderIds[next++ % seeded.orderIds.length];

    // The request shape must answer 200 before it is measured.
    const check = await fetch(`${url}/v1/orders/${take()}/refund`, { method: 'POST', headers: { ...auth, ...json, 'idempotency-key': randomUUID() }, body });
    if (check.status !== 200) throw new Error(`refund answered ${check.status}: ${await check.text()}`);
    const refundBody = (await check.json()) as { refund: { status: string }; order: { status: string } };
    if (refundBody.refund.status !== 'succeeded' || refundBody.order.status !== 'refunded') throw new Error(`unexpected refund answer ${JSON.stringify(refundBody)}`);

    const idle = rssMb(server.pid);
    console.log(
      `database: ${server.kind}; server: one process, compiled, production defaults; ${SECONDS} s per run, ${CONNECTIONS} connections; ${ORDERS} paid orders seeded; idle RSS ${idle} MB`,
    );
    await drive(server, 'warm-up', { url: `${url}/bench/bare`, duration: 2 });
    printHeader();
    const ins = await drive(server, 'POST /bench/insert (reference: 1 INSERT)', {
      url: `${url}/bench/insert`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ store: seeded.storeId, payload: { reason: 'bench' } }),
    });
    printRow(ins);
    const used = next;
    const r = await drive(server, 'POST /v1/orders/{id}/refund (simulator)', {
      url,
      requests: [
        {
          method: 'POST',
          path: '/v1/orders/x/refund',
          headers: { ...auth, ...json },
          body,
          // A different paid order and a new Idempotency-Key per request: each call is a real full refund.
          setupRequest: (req: any) => ({ ...req, path: `/v1/orders/${take()}/refund`, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
        },
      ],
    });
    printRow(r, ins);
    if (next - used > seeded.orderIds.length) console.log(`note: more requests (${next - used}) than seeded orders; raise BENCH_REFUND_ORDERS (repeats answer 409)`);
    console.log(`server RSS after the runs: ${rssMb(server.pid)} MB (idle before: ${idle} MB)`);
  } finally {
    await server.close();
  }
}
