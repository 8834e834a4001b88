import type { TestApp, TestStore } from '../helpers/app';
import { bearer } from '../helpers/app';
import { writeEvent, type EventEnvelope } from '../../src/platform/events';
import type { Mode } from '../../src/platform/tables';
import { dispatchEventsOnce, runDeliveryOnce, type DeliveryOptions } from '../../src/webhooks/delivery';

/** Seller-console call with the store's owner token. */
/** The console's view of one event with its deliveries and attempts. */
export async function eventDetail(t: TestApp, s: TestStore, id: string): Promise<any> {
  const r = await admin(t, s)('GET', `/admin/v1/events/${id}`);
  if (r.status !== 200) throw new Error(`event read failed: ${r.status}`);
  return r.body;
}

export function admin(t: TestApp, s: TestStore) {
  return async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    const res = await t.app.inject({ method, url, headers: bearer(s.ownerToken), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.body ? res.json() : null };
  };
}

export async function createEndpoint(t: TestApp, s: TestStore, body: { url: string; mode?: Mode; eventTypes?: string[]; description?: string }) {
  const res = await admin(t, s)('POST', '/admin/v1/webhook-endpoints', { mode: 'test', eventTypes: ['order.paid'], ...body });
  if (res.status !== 201) throw new Error(`endpoint creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { endpoint: { id: string; url: string }; secret: string };
}

/** Writes an event the way a module does: inside the transaction that makes the change. */
export async function emit(t: TestApp, storeId: string, type = 'order.paid', data: Record<string, unknown> = { orderId: 'ord_1' }, mode: Mode = 'test'): Promise<EventEnvelope> {
  return t.db.transaction().execute((trx) => writeEvent(trx, t.clock, { storeId, mode, type, data }));
}

/** One pass of the pipeline at the test clock's "now": fan out, then deliver what is due. */
export async function pump(t: TestApp, opts: DeliveryOptions = {}): Promise<number> {
  await dispatchEventsOnce(t.deps, t.clock.now());
  // Generous: local receivers answer at once, but a loaded machine must not turn an answer into a timeout.
  return runDeliveryOnce(t.deps, t.clock.now(), { timeoutMs: 10_000, ...opts });
}
