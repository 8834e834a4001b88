import { productTermsJson } from '../helpers/terms';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { sql } from 'kysely';
import { jsonb } from '../../src/db';
import { changeFeed } from '../../src/platform/changes';
import { LICENSE_CHANGED } from '../../src/licenses/verify-cache';
import { newId } from '../../src/platform/ids';
import type { Mode } from '../../src/platform/tables';
import { issueLicensesForOrder } from '../../src/licenses/issue-on-payment';
import { revealKey } from '../../src/licenses/keys';
import { allowLoopbackPort, createTestApp, createTestDatabase, type TestApp } from '../helpers/app';
import type { Db } from '../../src/db';
import type { AppDeps } from '../../src/deps';
import type { Clock } from '../../src/platform/clock';

/** What the factories need: a test app, or the benchmark's runtime. */
export interface Ctx {
  db: Db;
  clock: Clock;
  deps: AppDeps;
}

/**
 * createTestApp on its own database, closed in an order PostgreSQL tolerates: pg-pool's end() resolves before its
 * sockets have closed, and the helper's `drop database … with (force)` right after can kill one of them with an
 * error nobody listens to (reported to the lead; the webhooks tests work around it the same way).
 */
export async function createLicenseTestApp(opts: Parameters<typeof createTestApp>[0] = {}): Promise<TestApp> {
  if (opts.database) return createTestApp(opts);
  const database = await createTestDatabase();
  const t = await createTestApp({ ...opts, database });
  return {
    ...t,
    async close() {
      await t.close();
      if (database.kind === 'postgres') {
        await database.close();
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await database.drop();
    },
  };
}

// Small factories: products and paid orders written straight to the tables, licenses issued the way checkout does.

export interface ProductOpts {
  mode?: Mode;
  type?: 'one_time' | 'subscription';
  licenseMode?: 'none' | 'service' | 'seller';
  maxActivations?: number | null;
  validityDays?: number | null;
  name?: string;
}

export async function createProduct(t: Pick<Ctx, 'db' | 'clock'>, storeId: string, o: ProductOpts = {}): Promise<string> {
  const id = newId('prod', t.clock);
  const now = t.clock.now();
  const type = o.type ?? 'one_time';
  await t.db
    .insertInto('products')
    .values({
      id,
      store_id: storeId,
      mode: o.mode ?? 'test',
      name: o.name ?? '테스트 앱 라이선스',
      description: null,
      type,
      status: 'active',
      price: type === 'one_time' ? 10_000 : null,
      plans: jsonb(type === 'subscription' ? [{ id: 'basic', name: '기본', monthlyPrice: 9_900, yearlyPrice: 99_000 }] : []),
      refund_days: 7,
      sale_starts_at: null,
      sale_ends_at: null,
      stock: null,
      license_mode: o.licenseMode ?? 'service',
      license_max_activations: o.maxActivations === undefined ? 3 : o.maxActivations,
      license_validity_days: o.validityDays ?? null,
      trial_offered: false,
      usage_restriction_marked: false,
      clawback_disclosed: false,
      penalty_rate: 10,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export interface OrderOpts {
  mode?: Mode;
  subscriptionId?: string | null;
  periodEnd?: Date | null;
  buyerEmail?: string;
  buyerName?: string;
}

/** A paid order, with its licenses issued inside the same transaction, as the checkout module does. */
export async function paidOrder(t: Ctx, storeId: string, productId: string, o: OrderOpts = {}): Promise<string> {
  const id = newId('ord', t.clock);
  const now = t.clock.now();
  const product = await t.db.selectFrom('products').select(['name', 'type', 'mode']).where('id', '=', productId).executeTakeFirstOrThrow();
  const sub = product.type === 'subscription';
  const terms = await productTermsJson(t.db, productId, sub ? 'basic' : null);
  await t.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orders')
      .values({
        id,
        store_id: storeId,
        mode: o.mode ?? product.mode,
        product_id: productId,
        product_name: product.name,
        plan_id: sub ? 'basic' : null,
        billing_interval: sub ? 'monthly' : null,
        terms,
        checkout_session_id: null,
        status: 'paid',
        amount: sub ? 9_900 : 10_000,
        currency: 'KRW',
        method: 'card',
        buyer_name: o.buyerName ?? '김구매',
        buyer_email: o.buyerEmail ?? 'buyer@example.com',
        buyer_phone: '01012345678',
        metadata: null,
        coupon: null,
        coupon_id: null,
        period_start: sub ? now : null,
        period_end: o.periodEnd !== undefined ? o.periodEnd : sub ? new Date(now.getTime() + 30 * 86_400_000) : null,
        paid_at: now,
        confirmed_at: null,
        refunded_at: null,
        refunded_amount: null,
        provider: 'simulator',
        provider_payment_key: null,
        subscription_id: o.subscriptionId ?? null,
        subscription_event: o.subscriptionId ? 'initial' : null,
        settlement_id: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await issueLicensesForOrder(trx, t.deps, id);
  });
  return id;
}

/** The order's (original) license row and its key in clear. */
export async function licenseOf(t: Pick<Ctx, 'db' | 'deps'>, orderId: string) {
  const row = await t.db.selectFrom('licenses').selectAll().where('order_id', '=', orderId).where('rotated_from', 'is', null).executeTakeFirstOrThrow();
  return { ...row, key: revealKey(t.deps.config.masterKey, row.key_sealed) };
}

/** A product with a service-issued license bought once: the common starting point of app API tests. */
export async function licensed(t: Ctx, storeId: string, p: ProductOpts = {}) {
  const productId = await createProduct(t, storeId, p);
  const orderId = await paidOrder(t, storeId, productId);
  const lic = await licenseOf(t, orderId);
  return { productId, orderId, licenseId: lic.id, key: lic.key! };
}

export const nonce = () => randomBytes(32).toString('hex');

// ---------- signatures (checked with @noble/ed25519, a library other than the signer's node:crypto) ----------

export function parseSignatureHeader(h: string): { kid: string; alg: string; sig: string } | null {
  const m = /^kid="([^"]+)", alg="([^"]+)", sig="([^"]+)"$/.exec(h);
  return m ? { kid: m[1], alg: m[2], sig: m[3] } : null;
}

export async function signingKeys(t: Pick<TestApp, 'app'>): Promise<Map<string, string>> {
  const res = await t.app.inject({ method: 'GET', url: '/v1/licenses/signing-keys' });
  return new Map((res.json().keys as Array<{ kid: string; publicKey: string }>).map((k) => [k.kid, k.publicKey]));
}

/** Verifies `Service-Signature` over the raw body bytes against the published key of its kid. */
export async function verifySignature(keys: Map<string, string>, header: string | undefined, rawBody: Buffer | string): Promise<boolean> {
  if (!header) return false;
  const p = parseSignatureHeader(header);
  if (!p || p.alg !== 'ed25519') return false;
  const pub = keys.get(p.kid);
  if (!pub) return false;
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return ed.verifyAsync(Buffer.from(p.sig, 'base64'), bytes, Buffer.from(pub, 'base64'));
}

// ---------- a local receiver standing in for the seller's endpoint ----------

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How the next requests are answered. */
  respond: (req: Received, res: http.ServerResponse) => void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    received: [],
    respond: (_req, res) => res.writeHead(500).end(),
    close: async () => {},
  };
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const got = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      r.received.push(got);
      r.respond(got, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  allowLoopbackPort((server.address() as AddressInfo).port);
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/license-issue`;
  r.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return r;
}

/** A webhook endpoint row subscribed to license.issue, written directly (test mode, loopback allowed in tests). */
export async function addEndpoint(t: Pick<Ctx, 'db' | 'clock'>, storeId: string, url: string, o: { mode?: Mode; eventTypes?: string[]; status?: 'enabled' | 'disabled' } = {}) {
  const id = newId('we', t.clock);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const now = t.clock.now();
  await t.db
    .insertInto('webhook_endpoints')
    .values({
      id,
      store_id: storeId,
      mode: o.mode ?? 'test',
      url,
      event_types: jsonb(o.eventTypes ?? ['license.issue']),
      description: null,
      status: o.status ?? 'enabled',
      disabled_reason: null,
      disabled_at: null,
      secrets: jsonb([{ secret, createdAt: now.toISOString(), expiresAt: null }]),
      failing_since: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { id, secret };
}

// ---------- statement counts and change notifications (verify cache, statement-count guard) ----------

/** Statements the app's process sends to its database while `f` runs. */
export async function statementsOf(t: Pick<TestApp, 'deps'>, f: () => Promise<unknown>): Promise<number> {
  const before = t.deps.database.stats.statements;
  await f();
  return t.deps.database.stats.statements - before;
}

/**
 * Waits until every change notification committed so far on `channels` (license changes by default) has reached this
 * process. Notifications arrive in commit order on the listening connection, so a marker sent now arrives after them:
 * without this, a late notification of an earlier write (a busy machine) could empty a freshly primed cache and look
 * like a cache miss.
 */
export async function licenseNotificationsDelivered(t: Pick<TestApp, 'deps' | 'db'>, channels: string[] = [LICENSE_CHANGED]): Promise<void> {
  const feed = changeFeed(t.deps.database);
  await Promise.all(
    channels.map(async (channel) => {
      const marker = `marker_${nonce()}`;
      let off: () => unknown = () => undefined;
      const seen = new Promise<void>((resolve) => {
        off = feed.on(channel, (k) => k === marker && resolve());
      });
      await feed.ready();
      await sql`select pg_notify(${channel}, ${marker})`.execute(t.db);
      await seen;
      off();
    }),
  );
}
