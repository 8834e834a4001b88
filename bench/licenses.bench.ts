// License app API throughput beside the cost of its Ed25519 signature, measured in the same process and run.
// `npm run bench licenses` (BENCH_SECONDS=5 by default; TEST_DATABASE_URL to run against PostgreSQL).
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { drive, startService } from './lib';
import { createStore } from '../src/stores/service';
import { licensed } from '../test/licenses/factory';

function signCost(body: string, n: number): { perSec: number; usEach: number } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const bytes = Buffer.from(body, 'utf8');
  for (let i = 0; i < 500; i++) sign(null, bytes, privateKey); // warm up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sign(null, bytes, privateKey);
  const ms = performance.now() - t0;
  return { perSec: Math.round((n / ms) * 1000), usEach: (ms * 1000) / n };
}

export default async function run(): Promise<void> {
  const svc = await startService({ licenseRateLimitPerMinute: 1_000_000_000, licenseIpRateLimitPerMinute: 1_000_000_000 });
  try {
    const deps = svc.rt.deps;
    const { store } = await createStore(deps, { name: 'bench' });
    const lic = await licensed({ db: deps.db, clock: deps.clock, deps }, store.id, { maxActivations: 0 });
    const nonce = randomBytes(32).toString('hex');
    const headers = { 'content-type': 'application/json' };

    // One activation to name in the verify-with-activation run (that one writes lastVerifiedAt per call).
    const act = await fetch(`${svc.url}/v1/licenses/activate`, { method: 'POST', headers, body: JSON.stringify({ key: lic.key, productId: lic.productId, nonce }) });
    const activation = (await act.json()) as { activation: { id: string } };
    const check = await fetch(`${svc.url}/v1/licenses/verify`, { method: 'POST', headers, body: JSON.stringify({ key: lic.key, productId: lic.productId, nonce }) });
    const typicalBody = await check.text();
    if (check.status !== 200 || !check.headers.get('service-signature')) throw new Error(`verify did not answer a signed 200: ${check.status} ${typicalBody}`);

    const plain = await drive('POST /v1/licenses/verify', {
      url: `${svc.url}/v1/licenses/verify`,
      method: 'POST',
      headers,
      body: JSON.stringify({ key: lic.key, productId: lic.productId, nonce }),
    });
    const withAct = await drive('POST /v1/licenses/verify (activationId)', {
      url: `${svc.url}/v1/licenses/verify`,
      method: 'POST',
      headers,
      body: JSON.stringify({ key: lic.key, productId: lic.productId, nonce, activationId: activation.activation.id }),
    });

    // Same server, no database and no signature: what the HTTP stack alone costs here.
    const baseline = await drive('GET /v1/licenses/signing-keys (baseline)', { url: `${svc.url}/v1/licenses/signing-keys` });

    const n = Number(process.env.BENCH_SIGNATURES ?? 20_000);
    const cost = signCost(typicalBody, n);
    console.log(`Ed25519 signature alone (${typicalBody.length}-byte body, ${n}x)    ${String(cost.perSec).padStart(7)} sig/s     ${cost.usEach.toFixed(1)} µs each`);
    for (const f of [plain, withAct]) {
      const usPerRequest = 1e6 / Math.max(1, f.rps);
      console.log(`  ${f.name}: ${f.rps} req/s = ${usPerRequest.toFixed(0)} µs per request at saturation; the signature is ${((cost.usEach / usPerRequest) * 100).toFixed(1)}% of it`);
    }
    console.log(`  baseline without database or signature: ${baseline.rps} req/s`);
  } finally {
    await svc.close();
  }
}
