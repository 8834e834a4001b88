// A CPU profile of one hot endpoint under the benchmark's load: `node --import tsx bench/profile.ts <checkout|verify|products|insert> [dir]`
// (insert: the reference INSERT route, for comparison).
// Starts the compiled server exactly as the benchmark does (own process, production defaults) with --cpu-prof, drives
// only that endpoint, stops the server and prints the heaviest functions by self time. BENCH_DATABASE_URL as for the
// benchmark. The .cpuprofile files stay in `dir` (default /tmp/commerce-prof) for Chrome DevTools.
import { readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { drive, printHeader, printRow, startServer } from './lib';
import { createStore, updateModeSettings } from '../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../src/stores/api-keys';
import { seedDemoCatalog } from '../src/catalog/demo';
import { createProduct } from '../src/catalog/service';
import { licensed } from '../test/licenses/factory';

const which = process.argv[2] ?? 'checkout';
const dir = process.argv[3] ?? '/tmp/commerce-prof';
mkdirSync(dir, { recursive: true });
process.env.BENCH_CPU_PROF = dir;
const before = new Set(readdirSync(dir));

const { server, seeded } = await startServer(async (deps) => {
  const { store } = await createStore(deps, { name: 'bench', publicContactVerified: true });
  await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['example.com'], paymentProvider: 'simulator' });
  await seedDemoCatalog(deps, store.id);
  const product = await createProduct(deps, store.id, { mode: 'test', type: 'one_time', name: '벤치 상품', pricing: { price: 15_000 } });
  const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'bench', scopes: ALL_SCOPES });
  const lic = await licensed({ db: deps.db, clock: deps.clock, deps }, store.id, { maxActivations: 0 });
  return { storeId: store.id, productId: product.id, key: secret, lic };
});
const auth = { authorization: `Bearer ${seeded.key}` };
const json = { 'content-type': 'application/json' };
const sessionBody = JSON.stringify({
  productId: seeded.productId,
  customer: { name: '김구매', email: 'buyer@example.com' },
  metadata: { cartId: 'cart_1', source: 'bench' },
  successUrl: 'https://shop.example.com/thanks',
  cancelUrl: 'https://shop.example.com/cart',
});
const opts =
  which === 'insert'
    ? { url: `${server.url}/bench/insert`, method: 'POST' as const, headers: json, body: JSON.stringify({ store: seeded.storeId, payload: JSON.parse(sessionBody) }) }
    : which === 'products'
    ? { url: `${server.url}/v1/products`, headers: auth }
    : which === 'verify'
      ? { url: `${server.url}/v1/licenses/verify`, method: 'POST' as const, headers: json, body: JSON.stringify({ key: seeded.lic.key, productId: seeded.lic.productId, nonce: randomBytes(32).toString('hex') }) }
      : {
          url: server.url,
          requests: [{ method: 'POST' as const, path: '/v1/checkout/sessions', headers: { ...auth, ...json }, body: sessionBody, setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
        };
try {
  await drive(server, 'warm-up', { ...opts, duration: 2 });
  printHeader();
  printRow(await drive(server, which, opts));
} finally {
  await server.close();
}
const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.cpuprofile'));
if (!file) throw new Error('no profile written');
const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>; samples: number[]; timeDeltas: number[] };
const self = new Map<number, number>();
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const byFn = new Map<string, number>();
let total = 0;
for (const n of prof.nodes) {
  const t = self.get(n.id) ?? 0;
  total += t;
  const f = n.callFrame;
  const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/')}:${f.lineNumber + 1}`;
  byFn.set(name, (byFn.get(name) ?? 0) + t);
}
console.log(`\nprofile ${join(dir, file)}: top self time (${(total / 1e6).toFixed(1)} s sampled)`);
for (const [name, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${((t / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
process.exit(0);
