import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from 'kysely';
import { Type } from '@sinclair/typebox';
import { createTestApp, createTestStore, bearer, post } from '../helpers/app';
import { ApiError } from '../../src/platform/errors';
import { op } from '../../src/platform/http/route';
import type { Module } from '../../src/deps';
import { createProduct } from '../checkout/factory';

test('/ready answers 503 while the database ping fails and 200 again once it answers', async () => {
  const t = await createTestApp();
  try {
    const realPing = t.deps.database.ping.bind(t.deps.database);
    t.deps.database.ping = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    const down = await t.app.inject({ url: '/ready' });
    assert.equal(down.statusCode, 503);
    assert.deepEqual(down.json(), { status: 'unavailable' });
    t.deps.database.ping = realPing;
    const up = await t.app.inject({ url: '/ready' });
    assert.equal(up.statusCode, 200);
    assert.deepEqual(up.json(), { status: 'ready' });
  } finally {
    await t.close();
  }
});

test('connection-class database errors answer 503 SERVICE_UNAVAILABLE (retryable, Retry-After); others keep their code', async () => {
  const failures: Record<string, () => unknown> = {
    '57P01': () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    '08006': () => Object.assign(new Error('connection failure'), { code: '08006' }),
    reset: () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    terminated: () => new Error('Connection terminated unexpectedly'),
    wrapped: () => new ApiError('INTERNAL_ERROR', { cause: new Error('Connection terminated') }),
    plain: () => new Error('boom'),
    gateway: () => new ApiError('PG_REFUND_FAILED', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }),
  };
  const mod: Module = async (app) => {
    app.get('/fail/:kind', async (req) => {
      throw failures[(req.params as { kind: string }).kind]!();
    });
  };
  const t = await createTestApp({ extraModules: [mod] });
  try {
    for (const kind of ['57P01', '08006', 'reset', 'terminated', 'wrapped']) {
      const res = await t.app.inject({ url: `/fail/${kind}` });
      assert.equal(res.statusCode, 503, kind);
      assert.equal(res.json().code, 'SERVICE_UNAVAILABLE', kind);
      assert.equal(res.json().details.retryable, true, kind);
      assert.match(res.json().message, /다시 시도/);
      assert.equal(res.headers['retry-after'], '5', kind);
    }
    assert.equal((await t.app.inject({ url: '/fail/plain' })).json().code, 'INTERNAL_ERROR');
    assert.equal((await t.app.inject({ url: '/fail/gateway' })).json().code, 'PG_REFUND_FAILED');
  } finally {
    await t.close();
  }
});

test('an idempotent request whose key cannot be finished because the database went away still gets its own answer', async () => {
  const lost = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
  const mod: Module = async (app) => {
    app.post(
      '/probe/idempotent/:outcome',
      op({ operationId: 'probeIdempotent', summary: 'test probe', tags: ['Test'] }, { auth: 'api_key', idempotent: true }, { response: { 200: Type.Object({ ok: Type.Boolean() }) } }),
      async (req) => {
        if ((req.params as { outcome: string }).outcome === 'fail') throw lost();
        return { ok: true };
      },
    );
  };
  const t = await createTestApp({ extraModules: [mod] });
  try {
    const s = await createTestStore(t);
    // From here on, every statement on the idempotency table meets a lost connection (as the onSend hook runs).
    const db = t.db as any;
    for (const m of ['deleteFrom', 'updateTable'] as const) {
      const real = db[m].bind(db);
      db[m] = (table: string) => {
        if (table === 'idempotency_keys') throw lost();
        return real(table);
      };
    }
    const failed = await t.app.inject({ method: 'POST', url: '/probe/idempotent/fail', headers: post(s.key), payload: {} });
    assert.equal(failed.statusCode, 503);
    assert.equal(failed.json().code, 'SERVICE_UNAVAILABLE');
    assert.doesNotMatch(failed.body, /administrator command/, 'no driver message reaches the client');
    const done = await t.app.inject({ method: 'POST', url: '/probe/idempotent/ok', headers: post(s.key), payload: {} });
    assert.equal(done.statusCode, 200, 'the work was done: its answer is sent even though it could not be stored for replay');
    assert.deepEqual(done.json(), { ok: true });
  } finally {
    await t.close();
  }
});

test(
  'terminating the database backends mid-load: the process lives, failed requests are 503 ApiErrors, later requests succeed',
  { skip: process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL: set TEST_DATABASE_URL (the CI PostgreSQL pass runs it)' },
  async () => {
    const t = await createTestApp({ config: { rateLimitPerMinute: 1_000_000 } });
    const killer = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    killer.on('error', () => {});
    try {
      const s = await createTestStore(t);
      const dbName = (await sql<{ name: string }>`select current_database() as name`.execute(t.db)).rows[0]!.name;
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      await killer.connect();

      const answers: Array<{ status: number; body: any; retryAfter: string | null }> = [];
      const product = await createProduct(t, s);
      const get = async (path: string) => {
        // Every fourth request creates a checkout session (an idempotent POST: claims and finishes its key).
        const res =
          path === 'checkout'
            ? await fetch(base + '/v1/checkout/sessions', {
                method: 'POST',
                headers: { ...post(s.key), 'content-type': 'application/json' },
                body: JSON.stringify({ productId: product.id }),
              })
            : await fetch(base + path, { headers: bearer(s.key) });
        const text = await res.text();
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text: fails the ApiError assertion below
        }
        return { status: res.status, body, retryAfter: res.headers.get('retry-after') };
      };
      let terminated = 0;
      // Rounds of concurrent requests while another client terminates every backend of the test database,
      // until some requests have met a lost connection (normally the first round).
      for (let round = 0; round < 20 && !answers.some((a) => a.status !== 200); round++) {
        let stop = false;
        const kill = (async () => {
          while (!stop) {
            const r = await killer.query(
              'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
              [dbName],
            );
            terminated += r.rows[0].n;
            await new Promise((res) => setTimeout(res, 5));
          }
        })();
        const burst = Array.from({ length: 40 }, (_, i) => get(['/ready', '/v1/products', 'checkout', '/v1/products'][i % 4]!));
        answers.push(...(await Promise.all(burst)));
        stop = true;
        await kill;
      }
      assert.ok(terminated > 0, 'backends were terminated');
      const failed = answers.filter((a) => a.status !== 200);
      assert.ok(failed.length > 0, 'some requests met a terminated connection');
      for (const f of failed) {
        if (f.body?.status === 'unavailable') {
          assert.equal(f.status, 503, '/ready answers 503 while the database is away');
          continue;
        }
        assert.equal(f.status, 503, JSON.stringify(f));
        assert.equal(f.body.code, 'SERVICE_UNAVAILABLE');
        assert.equal(f.body.statusCode, 503);
        assert.equal(typeof f.body.message, 'string');
        assert.equal(f.body.details?.retryable, true);
        assert.equal(f.retryAfter, '5');
      }

      // The database is back (nothing terminates any more): the same process serves again by itself.
      const later = await get('/v1/products');
      assert.equal(later.status, 200, JSON.stringify(later.body));
      assert.ok(Array.isArray(later.body.data));
      assert.equal((await get('/ready')).status, 200);
    } finally {
      await killer.end().catch(() => {});
      await t.close();
    }
  },
);
