import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadConfig, type Config } from '../../src/config';
import { openPGlite, openPostgres, type Database } from '../../src/db';
import { ManualClock } from '../../src/platform/clock';
import { Worker } from '../../src/jobs/worker';
import { buildApp } from '../../src/app';
import type { App, AppDeps, Module } from '../../src/deps';
import { createStore, updateModeSettings, updateBusinessDetails } from '../../src/stores/service';
import { createApiKey, ALL_SCOPES } from '../../src/stores/api-keys';
import type { Scope } from '../../src/platform/http/route';
import type { Mode } from '../../src/platform/tables';
import pino from 'pino';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database on the
 * PostgreSQL server named by TEST_DATABASE_URL (created here, dropped by `close`).
 */
export async function createTestDatabase(): Promise<Database & { drop(): Promise<void>; url?: string }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const d = await openPGlite('memory://', { loadDataDir: pgliteTemplate() });
    await d.migrate();
    return { ...d, drop: () => d.close() };
  }
  const name = `commerce_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  const d = await openPostgres(u.toString(), 10);
  await d.migrate();
  return {
    ...d,
    url: u.toString(),
    async drop() {
      await d.close();
      // pool.end() resolves before every socket has closed; give them a moment so the forced drop finds none.
      await new Promise((r) => setTimeout(r, 100));
      const a = new pg.Client({ connectionString: url });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

let template: Blob | undefined;
/** The migrated PGlite template the test runner made for this run (TEST_PGLITE_TEMPLATE), if any. */
function pgliteTemplate(): Blob | undefined {
  const file = process.env.TEST_PGLITE_TEMPLATE;
  if (!file) return undefined;
  template ??= new Blob([readFileSync(file)]);
  return template;
}

export interface TestApp {
  app: App;
  /** The worker is the real one, so a test can run its jobs and tasks (`deps.worker.runOnce()`). */
  deps: AppDeps & { worker: Worker };
  clock: ManualClock;
  db: AppDeps['db'];
  close(): Promise<void>;
}

export const TEST_ADMIN_TOKEN = 'test-operator-token-0123456789';

/**
 * WEBHOOK_LOOPBACK_PORTS of every test app in this process: the one array, shared by reference, so a receiver
 * started after the app (on a random port) is reachable once it is listed with allowLoopbackPort.
 */
const TEST_LOOPBACK_PORTS: number[] = [];

/** Lists a local receiver's port as a loopback port test-mode webhooks may reach (see WEBHOOK_LOOPBACK_PORTS). */
export function allowLoopbackPort(port: number): void {
  if (!TEST_LOOPBACK_PORTS.includes(port)) TEST_LOOPBACK_PORTS.push(port);
}

/**
 * An app on the given database (or a new one), a fixed clock at 2026-11-01T00:00:00Z, quiet logs. The weekly
 * settlement job is off unless a test asks for it (`config: { settlementSchedule: 'weekly' }`): tests that move the
 * clock by weeks would otherwise see their orders settled (REFUND_SETTLED) as production would.
 */
export async function createTestApp(
  opts: { database?: Database; clock?: ManualClock; config?: Partial<Config>; redis?: boolean; extraModules?: Module[]; log?: pino.Logger } = {},
): Promise<TestApp> {
  const ownDb = !opts.database;
  const database = opts.database ?? (await createTestDatabase());
  const clock = opts.clock ?? new ManualClock();
  // Apps sharing a database share its master key, as processes of one deployment do.
  const masterKey: Buffer = ((database as any).testMasterKey ??= randomBytes(32));
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', REDIS_URL: '' },
    { dataDir: 'memory://', masterKey, adminToken: TEST_ADMIN_TOKEN, runWorkers: false, payAttemptsPerIpPerHour: 100_000, couponTriesPerIpPerHour: 100_000, webhookAllowLoopback: true, webhookLoopbackPorts: TEST_LOOPBACK_PORTS, publicBaseUrl: 'http://localhost:3000', settlementSchedule: 'off', reconciliationSchedule: 'off', ...opts.config },
  );
  const log = opts.log ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  // ioredis is loaded only by the files that use Redis (a tenth of a second of CPU in every other file).
  const redis =
    opts.redis && process.env.REDIS_URL
      ? new (await import('ioredis')).Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 1, ...(config.redisKeyPrefix ? { keyPrefix: config.redisKeyPrefix } : {}) })
      : null;
  const worker = new Worker(database.db, clock, log as any);
  const deps: AppDeps & { worker: Worker } = { config, database, db: database.db, clock, redis, log: log as any, worker };
  // Route schemas and documentation pages are compiled when first used: a test file runs few of the app's routes.
  const app = await buildApp(deps, { extraModules: opts.extraModules, compileOnFirstUse: true });
  return {
    app,
    deps,
    clock,
    db: database.db,
    async close() {
      await worker.stop();
      await app.close();
      redis?.disconnect();
      if (ownDb) await (database as any).drop?.();
    },
  };
}

export interface TestStore {
  storeId: string;
  ownerToken: string;
  /** A test-mode key with every scope. */
  key: string;
  keyId: string;
  /** Creates another key for this store. */
  newKey(o?: { mode?: Mode; scopes?: Scope[]; ipAllowlist?: string[] | null; productIds?: string[] | null }): Promise<{ key: string; id: string }>;
}

/** Business details a store needs before live checkout (a made-up 사업자등록번호 with a valid check digit). */
export const TEST_BUSINESS_DETAILS = {
  companyName: '주식회사 테스트상점',
  representative: '김대표',
  businessNumber: '123-45-67891',
  mailOrderNumber: '제2026-서울강남-00001호',
  address: '서울특별시 강남구 테헤란로 1',
  supportPhone: '02-1234-5678',
  supportEmail: 'help@example.com',
};

/**
 * A store with a full-scope test key, test payments on the simulator, localhost/example.com allowed as return
 * domains and business details set (pass `businessDetails: false` for a store without them).
 */
export async function createTestStore(t: Pick<TestApp, 'deps'>, o: { verified?: boolean; businessDetails?: boolean } = {}): Promise<TestStore> {
  const { store, ownerToken } = await createStore(t.deps, { name: '테스트 상점', publicContactVerified: o.verified ?? true });
  if (o.businessDetails ?? true) await updateBusinessDetails(t.deps, store.id, TEST_BUSINESS_DETAILS);
  for (const mode of ['test', 'live'] as const) {
    await updateModeSettings(t.deps, store.id, mode, { returnUrlDomains: ['localhost', '127.0.0.1', 'example.com'] });
  }
  const newKey: TestStore['newKey'] = async (k = {}) => {
    const r = await createApiKey(t.deps, store.id, { mode: k.mode ?? 'test', name: 'test', scopes: k.scopes ?? ALL_SCOPES, ipAllowlist: k.ipAllowlist ?? null, productIds: k.productIds ?? null });
    return { key: r.secret, id: r.apiKey.id };
  };
  const first = await newKey();
  return { storeId: store.id, ownerToken, key: first.key, keyId: first.id, newKey };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

let idemCounter = 0;
/** Headers for a POST of the public API: the key and a fresh Idempotency-Key. */
export const post = (key: string, idem?: string) => ({ authorization: `Bearer ${key}`, 'idempotency-key': idem ?? `idem-${process.pid}-${Date.now()}-${++idemCounter}` });
