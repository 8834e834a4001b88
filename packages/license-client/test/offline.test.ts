import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LicenseClient, LicenseError, LicenseNetworkError, LicenseApiError, MemoryStorage, type LicenseStorage, type OfflineFallbackFailure } from '../src/index';
import { FakeLicenseServer } from './fake-server';

const KEY = 'ABCDE-FGHJK-MNPQR-STVWX-YZ012';
const HOUR = 3_600_000;
const GRACE = 24 * HOUR;

/** A device clock the test moves; the fake server signs with the same clock so answers start fresh. */
function deviceClock() {
  let t = Date.now();
  return { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
}

// Closed after every test, failed ones included, so a failing assertion cannot leave the test process hanging.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(opts: { grace?: number; storage?: LicenseStorage } = {}) {
  const server = await FakeLicenseServer.start();
  cleanups.push(() => server.close());
  const clock = deviceClock();
  server.now = clock.now;
  const storage = opts.storage ?? new MemoryStorage();
  const make = () => new LicenseClient({ baseUrl: server.url, productId: 'prod_1', now: clock.now, storage, offlineGraceMs: opts.grace ?? GRACE, timeoutMs: 1_000 });
  return { server, clock, storage, client: make(), make };
}

async function offlineRefusal(p: Promise<unknown>, why: OfflineFallbackFailure, type: typeof LicenseError = LicenseNetworkError): Promise<void> {
  await assert.rejects(p, (err: any) => {
    assert.ok(err instanceof type, `expected ${type.name}, got ${String(err)}`);
    assert.equal(err.offlineFallback, why);
    return true;
  });
}

describe('offline grace', () => {
  test('server gone: the last good answer comes back with fromCache within the grace period, and is refused beyond it', async () => {
    const { server, clock, client } = await setup();
    const live = await client.verify(KEY, { activationId: 'act_01' });
    await server.close();
    clock.advance(23 * HOUR);
    const cached = await client.verify(KEY, { activationId: 'act_01' });
    assert.equal(cached.fromCache, true);
    assert.deepEqual({ ...cached, fromCache: false }, live);
    clock.advance(2 * HOUR);
    await offlineRefusal(client.verify(KEY, { activationId: 'act_01' }), 'grace_expired');
  });

  test('an app restarted while offline still gets its cached answer (answer and signing keys come from storage)', async () => {
    const { server, clock, client, make } = await setup();
    await client.verify(KEY);
    await server.close();
    clock.advance(HOUR);
    const r = await make().verify(KEY);
    assert.equal(r.fromCache, true);
    assert.equal(r.status, 'active');
  });

  test('a cached answer edited in storage is re-verified and refused', async () => {
    const map = new Map<string, string>();
    const storage: LicenseStorage = { get: (k) => map.get(k) ?? null, set: (k, v) => void map.set(k, v) };
    const { server, client } = await setup({ storage });
    server.respond = (req, s) => s.signed(s.answerFor(req, { status: 'revoked' }));
    await client.verify(KEY);
    await server.close();
    const [name, value] = [...map].find(([k]) => k.includes('answer:'))!;
    assert.equal(value.includes(KEY), false, 'the license key is not stored in the clear');
    const entry = JSON.parse(value);
    const body = Buffer.from(entry.body, 'base64').toString('utf8').replace('"revoked"', '"active"');
    map.set(name, JSON.stringify({ ...entry, body: Buffer.from(body).toString('base64') }));
    await offlineRefusal(client.verify(KEY), 'invalid');
  });

  test('a revocation seen online replaces the older active answer, so going offline does not bring "active" back', async () => {
    const { server, clock, client } = await setup();
    await client.verify(KEY);
    server.respond = (req, s) => s.signed(s.answerFor(req, { status: 'revoked', activation: null }));
    await client.verify(KEY);
    await server.close();
    clock.advance(HOUR);
    const r = await client.verify(KEY);
    assert.deepEqual([r.fromCache, r.status], [true, 'revoked']);
  });

  test('a cached active answer whose license expiresAt has passed is reported expired', async () => {
    const { server, clock, client } = await setup();
    const expiresAt = new Date(clock.now().getTime() + 2 * HOUR).toISOString();
    server.respond = (req, s) => s.signed(s.answerFor(req, { expiresAt }));
    await client.verify(KEY);
    await server.close();
    clock.advance(HOUR);
    assert.equal((await client.verify(KEY)).status, 'active');
    clock.advance(2 * HOUR);
    assert.equal((await client.verify(KEY)).status, 'expired');
  });

  test('a device clock set back before the answer was signed does not stretch the grace', async () => {
    const { server, clock, client } = await setup();
    await client.verify(KEY);
    await server.close();
    clock.advance(-2 * HOUR);
    await offlineRefusal(client.verify(KEY), 'clock_rollback');
  });

  test('grace 0 (the default), no cached answer, or a cached answer about another activation → the network error', async () => {
    const a = await setup({ grace: 0 });
    await a.client.verify(KEY);
    await a.server.close();
    await offlineRefusal(a.client.verify(KEY), 'disabled');

    const b = await setup();
    await b.server.close();
    await offlineRefusal(b.client.verify(KEY), 'no_cached_answer');

    const c = await setup();
    await c.client.verify(KEY, { activationId: 'act_A' });
    await c.server.close();
    await offlineRefusal(c.client.verify(KEY, { activationId: 'act_B' }), 'activation_mismatch');
  });

  test('offline grace re-checks productId and keyFingerprint: a stored answer copied from another license is refused', async () => {
    // Storage that remembers where each answer went, so the test can copy one license's entry into another's slot.
    class Recording extends MemoryStorage {
      answerSlots: string[] = [];
      override set(key: string, value: string): void {
        if (key.includes('answer:') && !this.answerSlots.includes(key)) this.answerSlots.push(key);
        super.set(key, value);
      }
    }
    const storage = new Recording();
    const { server, clock, make } = await setup({ storage });
    const OTHER = 'ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ';
    await make().verify(KEY);
    await make().verify(OTHER);
    const [mine, other] = storage.answerSlots;
    // another product's client, same storage and key: its own slot
    const otherProduct = new LicenseClient({ baseUrl: server.url, productId: 'prod_cheap', now: clock.now, storage, offlineGraceMs: GRACE, timeoutMs: 1_000 });
    await otherProduct.verify(KEY);
    const cheap = storage.answerSlots[2];
    assert.equal(storage.answerSlots.length, 3);
    await server.close();
    clock.advance(HOUR);

    assert.equal((await make().verify(KEY)).fromCache, true, 'untouched, the cached answer is used');
    storage.set(mine, storage.get(other)!);
    await offlineRefusal(make().verify(KEY), 'invalid');
    storage.set(mine, storage.get(cheap)!);
    await offlineRefusal(make().verify(KEY), 'invalid');
  });

  test('a 5xx from the service counts as unreachable; activate and deactivate never use the cache', async () => {
    const { server, client } = await setup();
    await client.verify(KEY);
    server.respond = (_req, s) => s.error(503, 'SERVICE_UNAVAILABLE', '잠시 후 다시 시도해 주세요.');
    assert.equal((await client.verify(KEY)).fromCache, true);
    await assert.rejects(client.activate(KEY), (err: unknown) => err instanceof LicenseApiError && err.status === 503);
    await server.close();
    await assert.rejects(client.deactivate(KEY, 'act_01'), LicenseNetworkError);
  });

  test('a service that accepts the connection but never answers times out into the cache', async () => {
    const hole = createServer(() => {}); // accepts, never responds
    await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
    cleanups.push(async () => {
      hole.closeAllConnections();
      await new Promise<void>((res) => hole.close(() => res()));
    });
    const holeUrl = `http://127.0.0.1:${(hole.address() as AddressInfo).port}`;
    let stalled = false;
    const { server, clock, storage } = await setup();
    const client = new LicenseClient({
      baseUrl: server.url,
      productId: 'prod_1',
      now: clock.now,
      storage,
      offlineGraceMs: GRACE,
      timeoutMs: 200,
      fetch: (url, init) => fetch(stalled ? url.replace(server.url, holeUrl) : url, init),
    });
    await client.verify(KEY);
    stalled = true;
    const r = await client.verify(KEY);
    assert.equal(r.fromCache, true);
  });

  test('a storage that throws does not fail a good live answer', async () => {
    const broken: LicenseStorage = {
      get: () => {
        throw new Error('disk gone');
      },
      set: async () => {
        throw new Error('quota');
      },
    };
    const { server, client } = await setup({ storage: broken });
    assert.equal((await client.verify(KEY)).status, 'active');
    await server.close();
    await offlineRefusal(client.verify(KEY), 'no_cached_answer');
  });
});
