import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../deps';
import { newId } from '../platform/ids';
import { withSpan } from '../platform/telemetry';
import { histogram, LAG_BUCKETS } from '../platform/metrics-registry';
import type { EventEnvelope } from '../platform/events';
import { DEFAULT_TIMEOUT_MS, sendSigned, type SendResult } from './outbound';
import {
  attemptOutcome,
  DELIVERY_ENDPOINT_DISABLED_ERROR,
  EVENT_RETENTION_MS,
  liveSecrets,
  openSecrets,
  LOOPBACK_RESPONSE_OMITTED,
  RESPONSE_EXCERPT_CHARS,
  SELF_SENT_EVENT_TYPES,
  subscribes,
} from './model';
import * as repo from './repo';
import { deleteEventsBefore } from './events-repo';
import type { AttemptRow, DeliveryRow, EndpointRow } from './repo';

/**
 * The webhook pipeline, as functions of (deps, now) that the in-server worker, `commerce worker`, the tests and the
 * benchmark all call:
 *   events (outbox) --dispatchEventsOnce--> webhook_deliveries --runDeliveryOnce--> HTTP POST + webhook_attempts
 */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'> & { worker?: { id: string } };

export interface DeliveryOptions {
  /** Per-attempt HTTP timeout; 15 s unless a test shortens it. */
  timeoutMs?: number;
  /** Deliveries one lane leases, sends in parallel and records together. */
  batchSize?: number;
  /** Lanes working side by side, each with its own batch. */
  concurrency?: number;
  /** Stop after this many deliveries in one run so other tasks get their turn. */
  maxPerRun?: number;
  /** Only these deliveries (the console's test send). */
  ids?: string[];
  /** The worker is stopping: the batches being sent finish and are recorded, no lane leases another. */
  signal?: AbortSignal;
}

const DISPATCH_BATCH = 200;

/**
 * Fans undispatched events out to one delivery per enabled endpoint of the same store and mode subscribed to the
 * type, and marks them dispatched, in one transaction per batch: a crash leaves the batch undispatched, never half done.
 * Events of a transaction that rolled back were never visible, so they are never sent.
 */
export async function dispatchEventsOnce(deps: Deps, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deps.db.transaction().execute(async (trx) => {
      const events = await repo.lockUndispatchedEvents(trx, DISPATCH_BATCH);
      if (events.length === 0) return 0;
      const endpoints = await repo.enabledEndpointsOfStores(trx, [...new Set(events.map((e) => e.store_id))]);
      const deliveries: repo.NewDelivery[] = [];
      for (const ev of events) {
        if (SELF_SENT_EVENT_TYPES.has(ev.type)) continue;
        for (const ep of endpoints) {
          if (ep.store_id === ev.store_id && ep.mode === ev.mode && subscribes(ep.event_types, ev.type)) {
            deliveries.push({ id: newId('whd', deps.clock), eventId: ev.id, endpointId: ep.id, storeId: ev.store_id, mode: ev.mode, trigger: 'event' });
          }
        }
      }
      await repo.insertDeliveries(trx, deliveries, now);
      await repo.markDispatched(trx, events.map((e) => e.id), now);
      return events.length;
    });
    total += n;
    if (n < DISPATCH_BATCH) return total;
  }
}

export function envelopeOf(ev: { id: string; type: string; mode: 'live' | 'test'; created_at: Date; data: Record<string, unknown> }): EventEnvelope {
  return { id: ev.id, type: ev.type, mode: ev.mode, createdAt: ev.created_at.toISOString(), data: ev.data };
}

/** Event written → its delivery accepted by the endpoint, on the service clock (retries included). */
const deliveryLag = histogram({
  name: 'commerce_webhook_delivery_lag_seconds',
  help: 'Webhook deliveries accepted by the endpoint: time from the event to its successful delivery',
  buckets: LAG_BUCKETS,
});

export interface LeasedDelivery {
  delivery: DeliveryRow;
  token: string;
}

/** Step 1: lease due deliveries and commit, so the HTTP calls happen outside any transaction. */
export async function leaseDeliveries(deps: Deps, now: Date, o: { limit: number; timeoutMs: number; ids?: string[] }): Promise<LeasedDelivery[]> {
  // A fresh token per lease: the same worker re-leasing after expiry must not mistake the old lease for its own.
  const token = `${deps.worker?.id ?? 'wrk'}:${randomBytes(6).toString('hex')}`;
  // The lease outlives the longest possible attempt (timeout + DNS) with room to record it.
  const leaseUntil = new Date(now.getTime() + o.timeoutMs * 2 + 60_000);
  const rows = await deps.db.transaction().execute((trx) => repo.leaseDueDeliveries(trx, { now, token, leaseUntil, limit: o.limit, ids: o.ids }));
  return rows.map((delivery) => ({ delivery, token }));
}

/** Decrypted secrets of an endpoint row, opened once per row object (a batch shares one row per endpoint). */
const openedSecrets = new WeakMap<EndpointRow, ReturnType<typeof openSecrets>>();
function endpointSecrets(masterKey: Buffer, endpoint: EndpointRow) {
  let opened = openedSecrets.get(endpoint);
  if (!opened) openedSecrets.set(endpoint, (opened = openSecrets(masterKey, endpoint.secrets)));
  return opened;
}

/** Step 2: send one leased delivery (no transaction open). Returns null when the endpoint cannot receive any more. */
export async function sendLeased(
  deps: Deps,
  d: DeliveryRow,
  endpoint: EndpointRow | undefined,
  event: EventEnvelope | undefined,
  timeoutMs: number,
): Promise<{ result: SendResult; startedAt: Date; url: string } | null> {
  if (!endpoint || endpoint.status !== 'enabled' || !event) return null;
  const startedAt = deps.clock.now();
  const secrets = liveSecrets(endpointSecrets(deps.config.masterKey, endpoint), startedAt).map((s) => s.secret);
  const result = await withSpan('webhook deliver', { 'webhook.delivery_id': d.id, 'webhook.event_type': event.type, 'webhook.attempt': d.attempts + 1 }, async (span) => {
    const r = await sendSigned(deps, { id: endpoint.id, url: endpoint.url, secrets }, event, { timeoutMs });
    span.setAttributes({ 'http.response.status_code': r.status ?? undefined, 'webhook.succeeded': r.ok });
    if (!r.ok) span.fail(r.status ? `HTTP ${r.status}` : 'not delivered');
    return r;
  }, 'client');
  return { result, startedAt, url: endpoint.url };
}

export interface SentDelivery {
  leased: LeasedDelivery;
  /** null: not sent (endpoint deleted or disabled meanwhile, event gone). */
  sent: { result: SendResult; startedAt: Date; url: string } | null;
}

interface EndpointState {
  row: EndpointRow;
  failingSince: Date | null;
  disableReason: string | null;
}

/**
 * Step 3: record a batch of attempts and their outcomes in one transaction (a handful of statements whatever the
 * batch size). The delivery's state moves only for the lease holder: if a lease ran out mid-send and another
 * worker re-sent, both attempts are logged but only the current holder schedules. A success always sticks.
 * Endpoint bookkeeping uses conditional updates instead of a row lock, so lanes delivering to one busy endpoint
 * do not queue behind each other.
 */
export async function recordBatch(deps: Deps, items: SentDelivery[]): Promise<void> {
  if (items.length === 0) return;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    const rows = await repo.lockDeliveries(trx, items.map((i) => i.leased.delivery.id));
    const rowById = new Map(rows.map((r) => [r.id, r]));
    const endpoints = new Map<string, EndpointState>(
      (await repo.endpointsByIds(trx, [...new Set(rows.map((r) => r.endpoint_id))])).map((e) => [e.id, { row: e, failingSince: e.failing_since, disableReason: null }]),
    );
    const attempts: AttemptRow[] = [];
    const updates: repo.DeliveryUpdate[] = [];
    const ordered = [...items].sort((a, b) => (a.sent?.startedAt.getTime() ?? 0) - (b.sent?.startedAt.getTime() ?? 0));
    for (const { leased, sent } of ordered) {
      const d = rowById.get(leased.delivery.id);
      if (!d) continue; // the endpoint (and with it the delivery) was deleted meanwhile
      const holder = d.locked_by === leased.token;
      if (!sent) {
        if (holder && d.status === 'pending') {
          updates.push({ id: d.id, status: 'failed', nextAttemptAt: null, attempts: d.attempts, lastStatusCode: d.last_status_code, lastError: DELIVERY_ENDPOINT_DISABLED_ERROR, lastAttemptAt: d.last_attempt_at, release: true });
        }
        continue;
      }
      const attempt = d.attempts + 1;
      const { result } = sent;
      const error = result.error?.slice(0, 1000) ?? null;
      attempts.push({
        id: newId('wha', deps.clock),
        delivery_id: d.id,
        event_id: d.event_id,
        endpoint_id: d.endpoint_id,
        attempt,
        started_at: sent.startedAt,
        url: sent.url,
        succeeded: result.ok,
        status_code: result.status,
        duration_ms: result.durationMs,
        error,
        // A loopback answer comes from a service on the operator's machine: never kept for the seller to read.
        response_excerpt: result.loopback ? LOOPBACK_RESPONSE_OMITTED : result.body ? result.body.slice(0, RESPONSE_EXCERPT_CHARS) : null,
      });
      const ep = endpoints.get(d.endpoint_id);
      const outcome = attemptOutcome({ ok: result.ok, status: result.status, attempt, now, failingSince: ep?.failingSince ?? null });
      const moves = d.status === 'pending' && (holder || result.ok);
      updates.push({
        id: d.id,
        status: moves ? outcome.delivery.status : null,
        nextAttemptAt: outcome.delivery.nextAttemptAt,
        attempts: attempt,
        lastStatusCode: result.status,
        lastError: error,
        lastAttemptAt: sent.startedAt,
        release: moves && holder,
      });
      if (ep && ep.row.status === 'enabled') {
        ep.failingSince = outcome.endpoint.failingSince;
        ep.disableReason ??= outcome.endpoint.disableReason;
      }
    }
    await repo.insertAttempts(trx, attempts);
    await repo.applyDeliveryUpdates(trx, updates, now);
    for (const ep of endpoints.values()) {
      if (ep.row.status !== 'enabled') continue;
      if (ep.disableReason) {
        await repo.disableEndpoint(trx, ep.row.id, ep.disableReason, ep.failingSince, now);
        await repo.failPendingDeliveries(trx, ep.row.id, now, DELIVERY_ENDPOINT_DISABLED_ERROR);
      } else if (ep.failingSince === null && ep.row.failing_since !== null) {
        await repo.clearFailingSince(trx, ep.row.id, now);
      } else if (ep.failingSince !== null && ep.row.failing_since === null) {
        await repo.startFailingSince(trx, ep.row.id, ep.failingSince, now);
      }
    }
  });
}

/** Single-delivery form of recordBatch. */
export async function recordAttempt(deps: Deps, leased: LeasedDelivery, sent: SentDelivery['sent']): Promise<void> {
  await recordBatch(deps, [{ leased, sent }]);
}

const later = (a: Date, b: Date) => (a.getTime() >= b.getTime() ? a : b);

/**
 * Delivers every delivery due at `now`. Each of `concurrency` lanes loops: lease a batch (committed), send it in
 * parallel outside any transaction, record the batch. A hanging endpoint holds up one lane for at most the timeout,
 * not the whole worker. A worker that dies between send and record leaves the lease to expire and the delivery is
 * sent again (at-least-once; receivers de-duplicate on webhook-id). Returns how many deliveries were attempted.
 */
export async function runDeliveryOnce(deps: Deps, now: Date, opts: DeliveryOptions = {}): Promise<number> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const batchSize = opts.batchSize ?? 25;
  const maxPerRun = opts.maxPerRun ?? 2000;
  const lanes = opts.ids ? 1 : (opts.concurrency ?? 4);
  let total = 0;
  const lane = async () => {
    while (total < maxPerRun && !opts.signal?.aborted) {
      // A long run must not lease with a stale "now": the lease would be born expired.
      const at = later(now, deps.clock.now());
      const leased = await leaseDeliveries(deps, at, { limit: Math.min(batchSize, maxPerRun - total), timeoutMs, ids: opts.ids });
      if (leased.length === 0) return;
      total += leased.length;
      try {
        const [events, endpoints] = await Promise.all([
          repo.eventsByIds(deps.db, [...new Set(leased.map((l) => l.delivery.event_id))]),
          repo.endpointsByIds(deps.db, [...new Set(leased.map((l) => l.delivery.endpoint_id))]),
        ]);
        const eventById = new Map(events.map((e) => [e.id, envelopeOf(e)]));
        const endpointById = new Map(endpoints.map((e) => [e.id, e]));
        const sent = await Promise.all(
          leased.map(async (l) => ({
            leased: l,
            sent: await sendLeased(deps, l.delivery, endpointById.get(l.delivery.endpoint_id), eventById.get(l.delivery.event_id), timeoutMs),
          })),
        );
        await recordBatch(deps, sent);
        const at = deps.clock.now().getTime();
        for (const s of sent) {
          const event = s.sent?.result.ok ? eventById.get(s.leased.delivery.event_id) : undefined;
          if (event) deliveryLag.observe(Math.max(0, at - Date.parse(event.createdAt)) / 1000);
        }
      } catch (err) {
        // A database error: the leases expire and the deliveries are retried, never lost.
        deps.log.error({ err, deliveries: leased.map((l) => l.delivery.id) }, 'webhook delivery bookkeeping failed');
        return;
      }
      if (opts.ids) return;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return total;
}

/** Housekeeping: rotated-out secrets past their 24 h stop being stored; events past retention go with their log. */
export async function pruneOnce(deps: Pick<AppDeps, 'db'>, now: Date): Promise<number> {
  let n = 0;
  for (const ep of await repo.endpointsWithSeveralSecrets(deps.db)) {
    const kept = liveSecrets(ep.secrets, now);
    if (kept.length !== ep.secrets.length && kept.length > 0) {
      await repo.setEndpointSecrets(deps.db, ep.id, kept);
      n++;
    }
  }
  const before = new Date(now.getTime() - EVENT_RETENTION_MS);
  for (;;) {
    const deleted = await deleteEventsBefore(deps.db, before);
    n += deleted;
    if (deleted === 0) break;
  }
  return n;
}
