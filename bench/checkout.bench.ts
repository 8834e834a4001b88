import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { startService, drive, ratio } from './lib';
import { createApiKey, createStore, ALL_SCOPES, updateModeSettings } from '../src/stores/service';
import { createProduct } from '../src/catalog/service';

/**
 * `POST /v1/checkout/sessions` with a fresh Idempotency-Key on every call (so each one is processed, never replayed):
 * key lookup, rate limit, idempotency claim and store, validation, product and store-settings reads, the session
 * insert. Beside it a bare Fastify POST route on a separate plain instance in the same process, taking the same body.
 * `npm run bench checkout` (BENCH_SECONDS=5 by default; TEST_DATABASE_URL to run against PostgreSQL).
 */
export default async function run(): Promise<void> {
  const svc = await startService();
  const bare = Fastify();
  bare.post('/bare', async (req) => ({ ok: true, received: typeof req.body }));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    const deps = svc.rt.deps;
    const { store } = await createStore(deps, { name: 'bench', publicContactVerified: true });
    await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['example.com'], paymentProvider: 'simulator' });
    const product = await createProduct(deps, store.id, { mode: 'test', type: 'one_time', name: '벤치 상품', price: 15_000 });
    const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'bench', scopes: ALL_SCOPES });
    const body = JSON.stringify({
      productId: product.id,
      customer: { name: '김구매', email: 'buyer@example.com' },
      metadata: { cartId: 'cart_1', source: 'bench' },
      successUrl: 'https://shop.example.com/thanks',
      cancelUrl: 'https://shop.example.com/cart',
    });
    const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };

    const check = await fetch(`${svc.url}/v1/checkout/sessions`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body });
    if (check.status !== 200) throw new Error(`create session answered ${check.status}: ${await check.text()}`);

    console.log(`database: ${deps.database.kind}; ${process.env.BENCH_SECONDS ?? 5} s per run, 10 connections`);
    const b = await drive('bare Fastify route POST /bare', { url: `${bareUrl}/bare`, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const c = await drive('POST /v1/checkout/sessions (fresh key)', {
      url: svc.url,
      requests: [
        {
          method: 'POST',
          path: '/v1/checkout/sessions',
          headers,
          body,
          // A new Idempotency-Key per request: each call creates a session instead of replaying the first one.
          setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
        },
      ],
    });
    const created = await deps.db.selectFrom('checkout_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    console.log(`sessions created: ${Number(created.n)} (every 2xx made one)`);
    console.log(ratio(c, b));
  } finally {
    await bare.close();
    await svc.close();
  }
}
