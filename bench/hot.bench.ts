// The hot endpoints against the reference routes that do their irreducible work, on one server process:
//   GET /v1/products            vs  GET /bench/select  (one indexed SELECT)
//   POST /v1/checkout/sessions  vs  POST /bench/insert (one INSERT)
//   POST /v1/licenses/verify    vs  POST /bench/sign   (one SELECT + one Ed25519 signature)
// plus GET /bench/bare and /health for the HTTP stack. `npm run bench hot`; with BENCH_DATABASE_URL (or TEST_DATABASE_URL)
// it runs on that PostgreSQL and then on the embedded PGlite, and prints the embedded checkout's throughput as a share
// of PostgreSQL's from the same run; without, on PGlite only. BENCH_SECONDS (5) and BENCH_CONNECTIONS (10).
// `npm run bench hot -- --bare-ref` (or BENCH_BARE_REF=1), PostgreSQL only: each reference route is also measured in a
// bare Node process of its own (bench/bare-reference.mjs: node:http and pg, same database, the server's pool size), and
// every endpoint row gets a second line with its ratios to that process's figures (requests/s, and CPU per request
// from each process's /proc), so a ratio is not flattered by the reference sharing the server's process.
import { randomBytes, randomUUID } from 'node:crypto';
import { CONNECTIONS, SECONDS, drive, idleRssMb, postgresUrl, printHeader, printRow, rssMb, startBareReference, startServer, type Figures } from './lib';
import { createStore, updateModeSettings } from '../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../src/stores/api-keys';
import { seedDemoCatalog } from '../src/catalog/demo';
import { createProduct } from '../src/catalog/service';
import { hashLicenseKey } from '../src/licenses/keys';
import { licensed } from '../test/licenses/factory';

const BARE_REF = process.argv.includes('--bare-ref') || process.env.BENCH_BARE_REF === '1';

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
  // The separate reference process, PostgreSQL only (the embedded database belongs to the server's process).
  const bareRef = BARE_REF && database ? await startBareReference(server) : null;
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
    if (bareRef) console.log(`reference routes also in their own process (node:http + pg, pool ${server.env.DATABASE_POOL_SIZE ?? 10}): "… vs the reference in its own process" lines`);
    else if (BARE_REF) console.log('--bare-ref: not on the embedded database (one process per data directory); in-process references only');
    // The same reference route in the bare process, when there is one.
    const separately = async (name: string, opts: Parameters<typeof drive>[2]): Promise<Figures | undefined> => {
      if (!bareRef) return undefined;
      const f = await drive(bareRef, `${name} [own process]`, { ...opts, url: String(opts.url).replace(url, bareRef.url) });
      printRow(f);
      return f;
    };
    // Warm the server's JIT and pools before anything is measured.
    await drive(server, 'warm-up', { url: `${url}/bench/bare`, duration: 2 });
    await drive(server, 'warm-up', { url: `${url}/v1/products`, headers: auth, duration: 2 });
    if (bareRef) await drive(bareRef, 'warm-up', { url: `${bareRef.url}/bench/bare`, duration: 2 });
    printHeader();
    const bare = await drive(server, 'GET /bench/bare (reference: HTTP only)', { url: `${url}/bench/bare` });
    printRow(bare);
    const bareSep = await separately('GET /bench/bare', { url: `${url}/bench/bare` });
    printRow(await drive(server, 'GET /health', { url: `${url}/health` }), bare, bareSep);

    const sel = await drive(server, 'GET /bench/select (reference: 1 SELECT)', { url: `${url}/bench/select?store=${seeded.storeId}` });
    printRow(sel);
    const selSep = await separately('GET /bench/select', { url: `${url}/bench/select?store=${seeded.storeId}` });
    printRow(await drive(server, 'GET /v1/products', { url: `${url}/v1/products`, headers: auth }), sel, selSep);

    const insOpts = {
      url: `${url}/bench/insert`,
      method: 'POST' as const,
      headers: json,
      body: JSON.stringify({ store: seeded.storeId, payload: JSON.parse(sessionBody) }),
    };
    const ins = await drive(server, 'POST /bench/insert (reference: 1 INSERT)', insOpts);
    printRow(ins);
    const insSep = await separately('POST /bench/insert', insOpts);
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
    printRow(checkout, ins, insSep);

    const signOpts = {
      url: `${url}/bench/sign`,
      method: 'POST' as const,
      headers: json,
      body: JSON.stringify({ keyHash: seeded.keyHash, productId: seeded.lic.productId, nonce }),
    };
    const sign = await drive(server, 'POST /bench/sign (reference: SELECT + Ed25519)', signOpts);
    printRow(sign);
    const signSep = await separately('POST /bench/sign', signOpts);
    printRow(await drive(server, 'POST /v1/licenses/verify', { url: `${url}/v1/licenses/verify`, method: 'POST', headers: json, body: verifyBody }), sign, signSep);
    printRow(await drive(server, 'POST /v1/licenses/verify (unknown key)', { url: `${url}/v1/licenses/verify`, method: 'POST', headers: json, body: unknownBody }), sign, signSep);
    console.log(`server RSS after the runs: ${rssMb(server.pid)} MB (idle before: ${idle} MB)`);
    return checkout;
  } finally {
    await bareRef?.close();
    await server.close();
  }
}
