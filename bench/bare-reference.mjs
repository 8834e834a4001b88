// The reference routes in a bare Node process of their own: `npm run bench hot -- --bare-ref` (or BENCH_BARE_REF=1)
// starts this beside the server so an endpoint's ratio is taken against the irreducible work done with nothing else
// in the process (no Fastify, no Kysely, no logging, no workers, no caches competing for the heap or the event loop).
// Plain node:http and pg on the same database, with the server's default pool size (DATABASE_POOL_SIZE, else 10) and
// named prepared statements as the server's pool uses them. Same routes and answers as src/bench/reference.ts:
//   GET  /bench/bare    nothing (the HTTP stack)
//   GET  /bench/select  one indexed SELECT of a product page
//   POST /bench/insert  one INSERT of a row like a session's
//   POST /bench/sign    one SELECT of a license by key hash + one Ed25519 signature
// plus GET /metrics (`db_statements_total`, as the server's, so the harness counts statements the same way).
// Environment: DATABASE_URL, PORT, HOST (127.0.0.1), DATABASE_POOL_SIZE. Prints "ready" on stdout once listening.
// Plain JavaScript, not TypeScript through tsx, so no loader sits in the process either.
import { createServer } from 'node:http';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
pool.on('error', () => {});
let statements = 0;
const query = (name, text, values) => {
  statements++;
  return pool.query({ name, text, values });
};
await pool.query('create table if not exists bench_reference_rows (id text primary key, store_id text not null, payload jsonb not null, created_at timestamptz not null)');
const { privateKey } = generateKeyPairSync('ed25519');

const send = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
};
const readJson = (req) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/bench/bare') return send(res, 200, JSON.stringify({ status: 'ok' }));
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(`db_statements_total ${statements}\n`);
    }
    if (req.method === 'GET' && url.pathname === '/bench/select') {
      const r = await query('ref_select', `select * from products where store_id = $1 and mode = 'test' order by created_at desc, id desc limit 20`, [url.searchParams.get('store')]);
      return send(res, 200, JSON.stringify({ data: r.rows }));
    }
    if (req.method === 'POST' && url.pathname === '/bench/insert') {
      const body = await readJson(req);
      const id = `ref_${randomBytes(12).toString('hex')}`;
      await query('ref_insert', 'insert into bench_reference_rows (id, store_id, payload, created_at) values ($1, $2, $3::jsonb, $4)', [id, body.store, JSON.stringify(body.payload), new Date()]);
      return send(res, 200, JSON.stringify({ id }));
    }
    if (req.method === 'POST' && url.pathname === '/bench/sign') {
      const body = await readJson(req);
      const r = await query('ref_sign', 'select * from licenses where key_hash = $1 and product_id = $2', [body.keyHash, body.productId]);
      const row = r.rows[0];
      const answer = JSON.stringify({ status: row?.status ?? 'not_found', expiresAt: row?.expires_at ?? null, maxActivations: row?.max_activations ?? null, nonce: body.nonce, issuedAt: new Date() });
      return send(res, 200, answer, { 'service-signature': sign(null, Buffer.from(answer), privateKey).toString('base64') });
    }
    send(res, 404, JSON.stringify({ error: 'not found' }));
  } catch (e) {
    send(res, 500, JSON.stringify({ error: String(e?.message ?? e) }));
  }
});
server.keepAliveTimeout = 72_000;
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('ready'));
const stop = () => {
  server.close(() => pool.end().then(() => process.exit(0)));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
