import Fastify from 'fastify';
import { startService, drive, ratio } from './lib';
import { createApiKey, createStore, ALL_SCOPES, updateModeSettings } from '../src/stores/service';
import { seedDemoCatalog } from '../src/catalog/demo';

/**
 * Authenticated `GET /v1/products` (key lookup, rate limit, product query, serialization) against a bare
 * Fastify route on a plain instance in the same process, and the service's own unauthenticated /health.
 */
export default async function run(): Promise<void> {
  const svc = await startService();
  const bare = Fastify();
  bare.get('/bare', async () => ({ status: 'ok' }));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    const deps = svc.rt.deps;
    const { store } = await createStore(deps, { name: 'bench', publicContactVerified: true });
    await updateModeSettings(deps, store.id, 'test', { returnUrlDomains: ['localhost'] });
    await seedDemoCatalog(deps, store.id);
    const { secret } = await createApiKey(deps, store.id, { mode: 'test', name: 'bench', scopes: ALL_SCOPES });
    console.log(`database: ${deps.database.kind}; ${process.env.BENCH_SECONDS ?? 5} s per run, 10 connections`);
    const b = await drive('bare Fastify route GET /bare', { url: `${bareUrl}/bare` });
    const h = await drive('service GET /health (no auth, no database)', { url: `${svc.url}/health` });
    const p = await drive('GET /v1/products (API key, database)', { url: `${svc.url}/v1/products`, headers: { authorization: `Bearer ${secret}` } });
    console.log(ratio(p, b));
    console.log(ratio(p, h));
  } finally {
    await bare.close();
    await svc.close();
  }
}
