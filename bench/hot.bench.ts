// The hot endpoints against the reference routes that do their irreducible work, on one server process:
//   GET /v1/products            vs  GET /bench/select  (one indexed SELECT)
//   POST /v1/checkout/sessions  vs  POST /bench/insert (one INSERT)
//   POST /v1/licenses/verify    vs  POST /bench/sign   (one SELECT + one Ed25519 signature)
// plus GET /bench/bare and /health for the HTTP stack. `npm run bench hot`; with BENCH_DATABASE_URL (or TEST_DATABASE_URL)
// it runs on that PostgreSQL and then on the embedded PGlite, and prints the embedded checkout's throughput as a share
// of PostgreSQL's from the same run; without, on PGlite only. BENCH_SECONDS (5) and BENCH_CONNECTIONS (10).
import { randomBytes, randomUUID } from 'node:crypto';
import { CONNECTIONS, SECONDS, drive, idleRssMb, postgresUrl, printHeader, printRow, rssMb, startServer, type Figures } from './lib';
import { createStore, updateModeSettings } from '../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../src/stores/api-keys';
import { seedDemoCatalog } from '../src/catalog/demo';
import { createProduct } from '../src/catalog/service';
import { hashLicenseKey } from '../src/licenses/keys';
import { licensed } from '../test/licenses/factory';

export default async function run(): Promise<void> {
  const pgUrl = postgresUrl();
  if (!pgUrl) {
    await runOn(null);
    return;
  }
  const onPostgres = await runOn(pgUrl);
  console.log('');
  const embedded = await runOn(null);
  console.log(
    `\nembedded checkout / PostgreSQL checkout, same run: ${embedded.rps} / ${onPostgres.rps} req/s = ${(embedded.rps / onPostgres.rps).toFixed(2)} (CPU per request ${embedded.cpuPerRequest.toFixed(3)} vs ${onPostgres.cpuPerRequest.toFixed(3)} ms)`,
  );
}

/** One server on `database` (PostgreSQL's URL, or null for PGlite); returns the checkout figures. */
async function runOn(database: string | null): Promise<Figures> {
  const { server, seeded } = await startServer(async (deps) => {
    const { store } = await createStore(deps, { name: 'bench', publicContactVerified: true });
    await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['example.com'], paymentProvider: 'simulator' });
    await seedDemoCatalog(deps, store.id);
    const product = await createProduct(deps, store.id, { mode: 'test', type: 'one_time', name: '벤치 상품', pricing: { price: 15_000 } });
    const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'bench', scopes: ALL_SCOPES });
    const lic = await licensed({ db: deps.db, clock: deps.clock, deps }, store.id, { maxActivations: 0 });
    return { storeId: store.id, productId: product.id, key: secret, lic, keyHash: hashLicenseKey(deps.config.masterKey, lic.key) };
  }, {}, database);
  try {
    const { url } = server;
    const auth = { authorization: `Bearer ${seeded.key}` };
    const json = { 'content-type': 'application/json' };
    const sessionBody = JSON.stringify({
      productId: seeded.productId,
      customer: { name: '김구매', email: 'buyer@example.com' },
      metadata: { cartId: 'cart_1', source: 'bench' },
      successUrl: 'https://shop.example.com/thanks',
      cancelUrl: 'https://shop.example.com/cart',
    });
    const nonce = randomBytes(32).toString('hex');
    const verifyBody = JSON.stringify({ key: seeded.lic.key, productId: seeded.lic.productId, nonce });
    // The abuse path: a key that was never issued (same shape as a real one), as an attacker's guesses would be.
    const unknownKey = seeded.lic.key.replace(/[A-Z0-9]/g, (c: string) => (c === 'X' ? 'Y' : 'X'));
    const unknownBody = JSON.stringify({ key: unknownKey, productId: seeded.lic.productId, nonce });

    // Each request shape must answer 2xx before it is measured.
    const checks: Array<[string, RequestInit]> = [
      [`${url}/v1/products`, { headers: auth }],
      [`${url}/v1/checkout/sessions`, { method: 'POST', headers: { ...auth, ...json, 'idempotency-key': randomUUID() }, body: sessionBody }],
      [`${url}/v1/licenses/verify`, { method: 'POST', headers: json, body: verifyBody }],
      [`${url}/bench/select?store=${seeded.storeId}`, {}],
    ];
    for (const [u, init] of checks) {
      const r = await fetch(u, init);
      if (r.status !== 200) throw new Error(`${u} answered ${r.status}: ${await r.text()}`);
    }

    const atReady = rssMb(server.pid);
    const idle = await idleRssMb(server.pid);
    console.log(
      `database: ${server.kind}; server: one process, compiled, production defaults; ${SECONDS} s per run, ${CONNECTIONS} connections; RSS at /ready ${atReady} MB, idle RSS ${idle} MB (left alone until it stopped falling, ≤ 60 s)`,
    );
    // Warm the server's JIT and pools before anything is measured.
    await drive(server, 'warm-up', { url: `${url}/bench/bare`, duration: 2 });
    await drive(server, 'warm-up', { url: `${url}/v1/products`, headers: auth, duration: 2 });
    printHeader();
    const bare = await drive(server, 'GET /bench/bare (reference: HTTP only)', { url: `${url}/bench/bare` });
    printRow(bare);
    printRow(await drive(server, 'GET /health', { url: `${url}/health` }), bare);

    const sel = await drive(server, 'GET /bench/select (reference: 1 SELECT)', { url: `${url}/bench/select?store=${seeded.storeId}` });
    printRow(sel);
    printRow(await drive(server, 'GET /v1/products', { url: `${url}/v1/products`, headers: auth }), sel);

    const ins = await drive(server, 'POST /bench/insert (reference: 1 INSERT)', {
      url: `${url}/bench/insert`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ store: seeded.storeId, payload: JSON.parse(sessionBody) }),
    });
    printRow(ins);
    const checkout = await drive(server, 'POST /v1/checkout/sessions (fresh key each)', {
      url,
      requests: [
        {
          method: 'POST',
          path: '/v1/checkout/sessions',
          headers: { ...auth, ...json },
          body: sessionBody,
          // A new Idempotency-Key per request, so each call creates a session rather than replaying the first.
          setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
        },
      ],
    });
    printRow(checkout, ins);

    const sign = await drive(server, 'POST /bench/sign (reference: SELECT + Ed25519)', {
      url: `${url}/bench/sign`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ keyHash: seeded.keyHash, productId: seeded.lic.productId, nonce }),
    });
    printRow(sign);
    printRow(await drive(server, 'POST /v1/licenses/verify', { url: `${url}/v1/licenses/verify`, method: 'POST', headers: json, body: verifyBody }), sign);
    printRow(await drive(server, 'POST /v1/licenses/verify (unknown key)', { url: `${url}/v1/licenses/verify`, method: 'POST', headers: json, body: unknownBody }), sign);
    console.log(`server RSS after the runs: ${rssMb(server.pid)} MB (idle before: ${idle} MB)`);
    return checkout;
  } finally {
    await server.close();
  }
}
