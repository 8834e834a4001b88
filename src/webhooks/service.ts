import { MESSAGES } from '../platform/messages';
import type { AppDeps } from '../deps';
import { ApiError, validationError } from '../platform/errors';
import { hasBidiControl } from '../platform/text';
import { writeEvent } from '../platform/events';
import { newId } from '../platform/ids';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import type { Mode } from '../platform/tables';
import { envelopeOf, runDeliveryOnce } from './delivery';
import { DELIVERY_ENDPOINT_DISABLED_ERROR, DISABLED_REASONS, LOOPBACK_RESPONSE_OMITTED, generateSecret, liveSecrets, openSecrets, rotateSecrets, sealSecret, SELF_SENT_EVENT_TYPES, TEST_EVENT_TYPE } from './model';
import * as repo from './repo';
import * as eventsRepo from './events-repo';
import { guardWebhookUrl, loopbackPorts, namesLoopback, parseWebhookUrl, URL_REFUSED_MESSAGE, urlPort } from './ssrf';
import type { EventDetailView, EventView, WebhookDeliveryView, WebhookEndpointView, WebhookSecretsView } from './schemas';

/** Seller-console use cases of the webhooks module. Each owns its transaction; HTTP calls happen outside them. */

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log' | 'worker'>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function endpointView(e: repo.EndpointRow): WebhookEndpointView {
  return {
    id: e.id,
    mode: e.mode,
    url: e.url,
    eventTypes: e.event_types,
    description: e.description,
    status: e.status,
    disabledReason: e.disabled_reason,
    disabledAt: iso(e.disabled_at),
    failingSince: iso(e.failing_since),
    createdAt: e.created_at.toISOString(),
    updatedAt: e.updated_at.toISOString(),
  };
}

function deliveryView(d: repo.DeliveryRow & { endpoint_url: string | null }, attempts: repo.AttemptRow[]): WebhookDeliveryView {
  return {
    id: d.id,
    eventId: d.event_id,
    endpointId: d.endpoint_id,
    endpointUrl: d.endpoint_url,
    trigger: d.trigger,
    status: d.status,
    attemptCount: d.attempts,
    nextAttemptAt: iso(d.next_attempt_at),
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    lastAttemptAt: iso(d.last_attempt_at),
    createdAt: d.created_at.toISOString(),
    updatedAt: d.updated_at.toISOString(),
    attempts: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        id: a.id,
        attempt: a.attempt,
        startedAt: a.started_at.toISOString(),
        url: a.url,
        succeeded: a.succeeded,
        statusCode: a.status_code,
        durationMs: a.duration_ms,
        error: a.error,
        responseExcerpt: a.response_excerpt !== null && namesLoopback(a.url) ? LOOPBACK_RESPONSE_OMITTED : a.response_excerpt,
      })),
  };
}

const eventView = (e: Parameters<typeof envelopeOf>[0]): EventView => envelopeOf(e);

/**
 * The registration-time SSRF check: same guard as delivery, DNS included. Live mode never gets the loopback exception.
 * The seller is told only that the address is not allowed: how the name resolved and which range refused it go to
 * the operator's log (`internal`), or the answer would map the service's internal DNS and network for anyone.
 */
async function assertUrlAllowed(deps: Deps, url: string, mode: Mode): Promise<string> {
  const ports = loopbackPorts(deps.config, mode);
  const r = await guardWebhookUrl(url, { loopbackPorts: ports });
  if (!r.ok) throw new ApiError('WEBHOOK_URL_NOT_ALLOWED', { message: refusalMessage(url, ports), internal: `webhook URL refused: ${r.reason}` });
  return r.url.toString();
}

/**
 * The generic refusal, except for a URL that itself names a loopback host (localhost, 127.x, [::1]) on a port the
 * operator did not list while loopback is allowed for this mode: then the developer is told which port and which list,
 * since nothing about the network is revealed by repeating what the URL and the operator's own setting say.
 */
function refusalMessage(raw: string, ports: readonly number[]): string {
  if (ports.length === 0 || !namesLoopback(raw)) return URL_REFUSED_MESSAGE;
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return URL_REFUSED_MESSAGE;
  const port = urlPort(parsed.url);
  return ports.includes(port) ? URL_REFUSED_MESSAGE : MESSAGES.webhooks.loopbackPortNotListed(port, ports);
}

async function loadEndpoint(deps: Deps, storeId: string, id: string): Promise<repo.EndpointRow> {
  const e = await repo.findEndpoint(deps.db, storeId, id);
  if (!e) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
  return e;
}

/** The description is shown to the store's members: no bidi control (the API's schema says so too; the dashboard form comes here). */
function assertDescription(description: string | null | undefined): void {
  if (description && hasBidiControl(description)) throw validationError([{ field: 'description', message: MESSAGES.webhooks.descriptionHasBidiControl }]);
}

export async function createEndpoint(
  deps: Deps,
  storeId: string,
  input: { mode: Mode; url: string; eventTypes: string[]; description?: string | null },
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  assertDescription(input.description);
  const url = await assertUrlAllowed(deps, input.url, input.mode);
  const now = deps.clock.now();
  const secret = generateSecret();
  const row = await repo.insertEndpoint(deps.db, {
    id: newId('we', deps.clock),
    storeId,
    mode: input.mode,
    url,
    eventTypes: input.eventTypes,
    description: input.description ?? null,
    secrets: [{ secret: sealSecret(deps.config.masterKey, secret), createdAt: now.toISOString(), expiresAt: null }],
    now,
  });
  return { endpoint: endpointView(row), secret };
}

export async function listEndpoints(deps: Deps, storeId: string, q: PageParams & { mode?: Mode }): Promise<Page<WebhookEndpointView>> {
  return listPage(q, () => repo.countEndpoints(deps.db, storeId, q.mode), (offset, limit) => repo.listEndpoints(deps.db, storeId, q.mode, offset, limit), endpointView);
}

export async function getEndpoint(deps: Deps, storeId: string, id: string): Promise<WebhookEndpointView> {
  return endpointView(await loadEndpoint(deps, storeId, id));
}

export async function updateEndpoint(
  deps: Deps,
  storeId: string,
  id: string,
  input: { url?: string; eventTypes?: string[]; description?: string | null; status?: 'enabled' | 'disabled' },
): Promise<WebhookEndpointView> {
  assertDescription(input.description);
  const current = await loadEndpoint(deps, storeId, id);
  // DNS happens before the transaction: no network wait while holding the row lock.
  const url = input.url !== undefined ? await assertUrlAllowed(deps, input.url, current.mode) : undefined;
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (trx) => {
    const e = await repo.findEndpoint(trx, storeId, id, { forUpdate: true });
    if (!e) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    const patch: Parameters<typeof repo.updateEndpoint>[2] = { updated_at: now };
    if (url !== undefined) patch.url = url;
    if (input.eventTypes !== undefined) patch.event_types = input.eventTypes;
    if (input.description !== undefined) patch.description = input.description;
    if (input.status === 'disabled' && e.status === 'enabled') {
      Object.assign(patch, { status: 'disabled', disabled_reason: DISABLED_REASONS.manual, disabled_at: now });
      await repo.failPendingDeliveries(trx, e.id, now, DELIVERY_ENDPOINT_DISABLED_ERROR);
    } else if (input.status === 'enabled' && e.status === 'disabled') {
      // A fresh start: the 5-day failure clock restarts, and the seller resends what was missed.
      Object.assign(patch, { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
    }
    return repo.updateEndpoint(trx, e.id, patch);
  });
  return endpointView(row);
}

export async function deleteEndpoint(deps: Deps, storeId: string, id: string): Promise<void> {
  if ((await repo.deleteEndpoint(deps.db, storeId, id)) === 0) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
}

export async function getSecrets(deps: Deps, storeId: string, id: string): Promise<WebhookSecretsView> {
  const e = await loadEndpoint(deps, storeId, id);
  const secrets = openSecrets(deps.config.masterKey, liveSecrets(e.secrets, deps.clock.now()));
  return { secret: secrets[0].secret, secrets };
}

export async function rotateSecret(deps: Deps, storeId: string, id: string): Promise<WebhookSecretsView> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    const e = await repo.findEndpoint(trx, storeId, id, { forUpdate: true });
    if (!e) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    const rotated = rotateSecrets(e.secrets, now);
    const [fresh, ...kept] = rotated.secrets;
    await repo.updateEndpoint(trx, e.id, { secrets: [{ ...fresh, secret: sealSecret(deps.config.masterKey, fresh.secret) }, ...kept], updated_at: now });
    return { secret: rotated.secret, secrets: openSecrets(deps.config.masterKey, rotated.secrets) };
  });
}

async function deliveryWithAttempts(deps: Deps, deliveryId: string): Promise<WebhookDeliveryView> {
  const d = await eventsRepo.deliveryWithEndpoint(deps.db, deliveryId);
  return deliveryView(d, await eventsRepo.attemptsOfDeliveries(deps.db, [d.id]));
}

/**
 * Sends a `webhook.test` event to this endpoint only, now, and answers with the attempt's outcome. A failed test
 * delivery retries on the normal schedule like any other.
 */
export async function sendTest(deps: Deps, storeId: string, id: string): Promise<{ event: EventView; delivery: WebhookDeliveryView }> {
  const now = deps.clock.now();
  const { event, deliveryId } = await deps.db.transaction().execute(async (trx) => {
    const e = await repo.findEndpoint(trx, storeId, id, { forUpdate: true });
    if (!e) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    if (e.status !== 'enabled') throw new ApiError('WEBHOOK_ENDPOINT_DISABLED');
    const event = await writeEvent(trx, deps.clock, { storeId, mode: e.mode, type: TEST_EVENT_TYPE, data: {} });
    // Already dispatched: the fan-out must not hand it to other endpoints.
    await repo.markDispatched(trx, [event.id], now);
    const deliveryId = newId('whd', deps.clock);
    await repo.insertDeliveries(trx, [{ id: deliveryId, eventId: event.id, endpointId: e.id, storeId, mode: e.mode, trigger: 'test' }], now);
    return { event, deliveryId };
  });
  await runDeliveryOnce(deps, now, { ids: [deliveryId] });
  return { event, delivery: await deliveryWithAttempts(deps, deliveryId) };
}

export async function listEvents(deps: Deps, storeId: string, q: PageParams & { mode?: Mode; type?: string }): Promise<Page<EventView>> {
  const f = { mode: q.mode, type: q.type };
  return listPage(q, () => eventsRepo.countEvents(deps.db, storeId, f), (offset, limit) => eventsRepo.listEvents(deps.db, storeId, f, offset, limit), eventView);
}

export async function getEvent(deps: Deps, storeId: string, id: string): Promise<EventDetailView> {
  const ev = await eventsRepo.findEvent(deps.db, storeId, id);
  if (!ev) throw new ApiError('EVENT_NOT_FOUND');
  const deliveries = await eventsRepo.deliveriesOfEvent(deps.db, ev.id);
  const attempts = await eventsRepo.attemptsOfDeliveries(deps.db, deliveries.map((d) => d.id));
  return { event: eventView(ev), dispatchedAt: iso(ev.dispatched_at), deliveries: deliveries.map((d) => deliveryView(d, attempts)) };
}

/** The events about one order with their deliveries and attempts, oldest first (the dashboard's order detail). */
export async function eventsOfOrder(deps: Deps, storeId: string, mode: Mode, orderId: string): Promise<EventDetailView[]> {
  const events = await eventsRepo.eventsOfOrder(deps.db, storeId, mode, orderId);
  const out: EventDetailView[] = [];
  for (const ev of events) {
    const deliveries = await eventsRepo.deliveriesOfEvent(deps.db, ev.id);
    const attempts = await eventsRepo.attemptsOfDeliveries(deps.db, deliveries.map((d) => d.id));
    out.push({ event: eventView(ev), dispatchedAt: iso(ev.dispatched_at), deliveries: deliveries.map((d) => deliveryView(d, attempts)) });
  }
  return out;
}

/** Queues the event again for one endpoint of the same mode (subscribed or not: the seller asked for it). */
export async function resendEvent(deps: Deps, storeId: string, eventId: string, endpointId: string): Promise<WebhookDeliveryView> {
  const now = deps.clock.now();
  const deliveryId = await deps.db.transaction().execute(async (trx) => {
    const ev = await eventsRepo.findEvent(trx, storeId, eventId);
    if (!ev) throw new ApiError('EVENT_NOT_FOUND');
    if (SELF_SENT_EVENT_TYPES.has(ev.type)) throw new ApiError('WEBHOOK_EVENT_NOT_RESENDABLE');
    const e = await repo.findEndpoint(trx, storeId, endpointId, { forUpdate: true });
    if (!e) throw new ApiError('WEBHOOK_ENDPOINT_NOT_FOUND');
    if (e.mode !== ev.mode) throw new ApiError('WEBHOOK_MODE_MISMATCH');
    if (e.status !== 'enabled') throw new ApiError('WEBHOOK_ENDPOINT_DISABLED');
    const id = newId('whd', deps.clock);
    await repo.insertDeliveries(trx, [{ id, eventId: ev.id, endpointId: e.id, storeId, mode: ev.mode, trigger: 'resend' }], now);
    return id;
  });
  return deliveryWithAttempts(deps, deliveryId);
}
