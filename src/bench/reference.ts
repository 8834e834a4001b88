import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { sql } from 'kysely';
import type { Module } from '../deps';

/**
 * Reference routes for `npm run bench`, registered only with BENCH_REFERENCE_ROUTES=true (never in production).
 * Each does the irreducible work of one hot endpoint on the same server, pool and HTTP stack, so the benchmark can
 * print each endpoint's throughput as a ratio to what that work alone allows:
 *   GET  /bench/bare    nothing (the HTTP stack)
 *   GET  /bench/select  one indexed SELECT of a product page      (reference for GET /v1/products)
 *   POST /bench/insert  one INSERT of a row like a session's      (reference for POST /v1/checkout/sessions)
 *   POST /bench/sign    one SELECT of a license by key hash + one Ed25519 signature (reference for POST /v1/licenses/verify)
 */
const referenceRoutes: Module = async (app, deps) => {
  if (!deps.config.benchReferenceRoutes) return;
  const { db } = deps;
  await sql`create table if not exists bench_reference_rows (id text primary key, store_id text not null, payload jsonb not null, created_at timestamptz not null)`.execute(db);
  const { privateKey } = generateKeyPairSync('ed25519');

  app.get('/bench/bare', async () => ({ status: 'ok' }));

  app.get('/bench/select', async (req) => {
    const { store } = req.query as { store: string };
    const r = await sql`select * from products where store_id = ${store} and mode = 'test' order by created_at desc, id desc limit 20`.execute(db);
    return { data: r.rows };
  });

  app.post('/bench/insert', async (req) => {
    const body = req.body as { store: string; payload: unknown };
    const id = `ref_${randomBytes(12).toString('hex')}`;
    await sql`insert into bench_reference_rows (id, store_id, payload, created_at) values (${id}, ${body.store}, ${JSON.stringify(body.payload)}::jsonb, ${deps.clock.now()})`.execute(db);
    return { id };
  });

  app.post('/bench/sign', async (req, reply) => {
    const body = req.body as { keyHash: string; productId: string; nonce: string };
    const r = await sql<{ id: string; status: string; expires_at: Date | null; max_activations: number | null }>`select * from licenses where key_hash = ${body.keyHash} and product_id = ${body.productId}`.execute(db);
    const row = r.rows[0];
    const answer = JSON.stringify({ status: row?.status ?? 'not_found', expiresAt: row?.expires_at ?? null, maxActivations: row?.max_activations ?? null, nonce: body.nonce, issuedAt: deps.clock.now() });
    reply.header('service-signature', sign(null, Buffer.from(answer), privateKey).toString('base64'));
    reply.type('application/json').send(answer);
  });
};

export default referenceRoutes;
