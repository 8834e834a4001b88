import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../../../test/helpers/app';
import { createProduct } from '../../../test/checkout/factory';
import { startReceiver, type Receiver } from '../../../test/webhooks/receiver';
import { createEndpoint, pump } from '../../../test/webhooks/setup';
import { ManualClock } from '../../../src/platform/clock';
import { TEST_CARDS } from '../../../src/payments';
import { CommerceApiError, CommerceClient, verifyWebhook, WebhookVerificationError, type CheckoutSession, type Order, type WebhookEvent } from '../src/index.js';

// The SDK against the real service on a real socket (app.listen on 127.0.0.1:0): what a seller's server does.
// The service's clock starts at the real time so webhook timestamps are within Standard Webhooks' 5-minute window.

let t: TestApp;
let s: TestStore;
let baseUrl: string;
let product: { id: string };
let rx: Receiver;
let secret = '';

before(async () => {
  t = await createTestApp({ clock: new ManualClock(new Date()), config: { rateLimitPerMinute: 6 } });
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  s = await createTestStore(t);
  product = await createProduct(t, s, { name: '전자책: SDK 가이드', price: 12_000 });
  rx = await startReceiver({ secrets: () => [secret] });
  ({ secret } = await createEndpoint(t, s, { url: rx.url() }));
});
after(async () => {
  await rx.close();
  await t.close();
});

/** A client with a fresh key (each key has its own minute budget), recording what it sends and how long it waits. */
async function client(opts: { fetch?: (req: Request) => Promise<Response>; maxRetries?: number } = {}) {
  const { key } = await s.newKey();
  const sent: Request[] = [];
  const slept: number[] = [];
  const inner = opts.fetch ?? ((req: Request) => fetch(req));
  const c = new CommerceClient({
    apiKey: key,
    baseUrl,
    maxRetries: opts.maxRetries,
    sleep: async (ms) => void slept.push(ms),
    fetch: async (req) => {
      sent.push(req.clone());
      return inner(req);
    },
  });
  return { c, sent, slept };
}

/** Pays a session on the hosted page with the simulator's approving test card, as a browser posts the form. */
async function pay(session: CheckoutSession): Promise<void> {
  const res = await fetch(new URL(new URL(session.url).pathname, baseUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ buyerName: '김구매', buyerEmail: 'buyer@example.com', buyerPhone: '010-1234-5678', method: 'card', action: 'pay', cardNumber: TEST_CARDS.success, agreeTerms: 'on', agreePrivacy: 'on', agreeThirdParty: 'on' }),
  });
  assert.ok(res.status === 200 || res.status === 303, `pay answered ${res.status}`);
}

async function sessionsInDb(): Promise<number> {
  const row = await t.db.selectFrom('checkout_sessions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

test('create a checkout session, pay it on the simulator, read the typed order; the POST carried a UUID Idempotency-Key', async () => {
  const { c, sent } = await client();
  const session = await c.checkout.createSession({ productId: product.id, successUrl: 'https://example.com/thanks', metadata: { cartId: 'cart-1' } });
  assert.equal(session.status, 'open');
  assert.match(session.url, /\/pay\/cs_/);
  assert.match(sent[0].headers.get('idempotency-key') ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  await pay(session);
  const done = await c.checkout.getSession(session.id);
  assert.equal(done.status, 'completed');
  assert.ok(done.orderId);
  const order: Order = await c.orders.get(done.orderId!);
  assert.equal(order.status, 'paid');
  assert.equal(order.amount, 12_000);
  assert.equal(order.productId, product.id);
  assert.deepEqual(order.metadata, { cartId: 'cart-1' });
  const page = await c.orders.list({ limit: 1 });
  assert.equal(page.data[0].id, order.id);
  assert.equal(sent.filter((r) => r.method === 'GET').every((r) => !r.headers.has('idempotency-key')), true, 'GETs carry no key');
});

test('a 429 is retried after its Retry-After with the same Idempotency-Key, and the session is created once', async () => {
  let calls = 0;
  const { c, sent, slept } = await client({
    fetch: async (req) => {
      // The first attempt is refused the way the service refuses a spent budget; the retry reaches the service.
      if (++calls === 1) return new Response(JSON.stringify({ statusCode: 429, code: 'RATE_LIMITED', message: '호출 한도를 초과했습니다.' }), { status: 429, headers: { 'retry-after': '7', 'content-type': 'application/json' } });
      return fetch(req);
    },
  });
  const before = await sessionsInDb();
  const session = await c.checkout.createSession({ productId: product.id });
  assert.equal(session.status, 'open');
  assert.deepEqual(slept, [7_000], 'waited Retry-After seconds');
  assert.equal(sent.length, 2);
  assert.equal(sent[0].headers.get('idempotency-key'), sent[1].headers.get('idempotency-key'));
  assert.equal(await sessionsInDb(), before + 1);
});

test("the service's own 429: the client waits the Retry-After the service sent, then surfaces RATE_LIMITED as a typed error", async () => {
  const { c, sent, slept } = await client({ maxRetries: 2 });
  for (let i = 0; i < 6; i++) await c.products.get(product.id);
  const err = await c.products.list().then(
    () => assert.fail('the seventh call of the minute is refused'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof CommerceApiError);
  assert.equal(err.status, 429);
  assert.equal(err.code, 'RATE_LIMITED');
  assert.equal(sent.length, 6 + 3, 'the first try and two retries');
  assert.equal(slept.length, 2);
  for (const ms of slept) assert.ok(ms >= 1_000 && ms <= 60_000 && ms % 1_000 === 0, `slept ${ms} ms (Retry-After in seconds)`);
});

test('a POST whose answer is lost on the network is retried with the same key: the service replays it, nothing is created twice', async () => {
  let calls = 0;
  let firstAnswer: CheckoutSession | null = null;
  const { c, sent, slept } = await client({
    fetch: async (req) => {
      const res = await fetch(req);
      // The service did the work, but the answer never reaches the seller's server.
      if (++calls === 1) {
        firstAnswer = (await res.json()) as CheckoutSession;
        throw new TypeError('fetch failed: socket hang up');
      }
      return res;
    },
  });
  const before = await sessionsInDb();
  const session = await c.checkout.createSession({ productId: product.id, successUrl: 'https://example.com/thanks' });
  assert.equal(session.id, firstAnswer!.id, 'the retry answers the session the first attempt created');
  assert.equal(await sessionsInDb(), before + 1);
  assert.equal(sent.length, 2);
  assert.equal(sent[0].headers.get('idempotency-key'), sent[1].headers.get('idempotency-key'));
  assert.equal(slept.length, 1);
});

test('an Idempotency-Key of your own is sent as given, and a network error on a POST without retries left is thrown as is', async () => {
  const { c, sent } = await client({ maxRetries: 0, fetch: async () => { throw new TypeError('fetch failed'); } });
  await assert.rejects(c.checkout.createSession({ productId: product.id }, { idempotencyKey: 'order-2026-0001' }), TypeError);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers.get('idempotency-key'), 'order-2026-0001');
});

test('API errors are CommerceApiError with status, code, Korean message, details and the Request-Id', async () => {
  const { c } = await client();
  const missing = await c.orders.get('ord_missing').catch((e: unknown) => e);
  assert.ok(missing instanceof CommerceApiError);
  assert.equal(missing.status, 404);
  assert.equal(missing.code, 'ORDER_NOT_FOUND');
  assert.match(missing.message, /[가-힣]/);
  assert.match(missing.requestId ?? '', /^req_/);
  const invalid = await c.checkout.createSession({ productId: product.id, successUrl: 'ftp://example.com/x' }).catch((e: unknown) => e);
  assert.ok(invalid instanceof CommerceApiError);
  assert.equal(invalid.status, 400);
  assert.equal(invalid.code, 'CHECKOUT_URL_INVALID');
  assert.equal(invalid.details?.field, 'successUrl');
});

test('verifyWebhook accepts a real order.paid delivery and returns the typed event; a changed body or another secret is refused', async () => {
  const { c } = await client();
  const session = await c.checkout.createSession({ productId: product.id });
  await pay(session);
  const orderId = (await c.checkout.getSession(session.id)).orderId!;
  rx.received.length = 0;
  await pump(t);
  const delivery = rx.received.find((r) => r.payload?.data?.id === orderId);
  assert.ok(delivery, 'the order.paid event was delivered');
  const event: WebhookEvent = verifyWebhook(delivery.rawBody, delivery.headers, secret);
  assert.equal(event.type, 'order.paid');
  if (event.type !== 'order.paid') return;
  // Narrowed by `type`: the Order's fields are typed.
  const amount: number = event.data.amount;
  assert.equal(amount, 12_000);
  assert.equal(event.data.id, orderId);
  assert.equal(event.id, delivery.headers['webhook-id']);
  // The raw bytes as a Buffer and the headers as a fetch Headers object work too.
  assert.equal(verifyWebhook(Buffer.from(delivery.rawBody), new Headers(delivery.headers as Record<string, string>), secret).id, event.id);
  assert.throws(() => verifyWebhook(delivery.rawBody.replace('12000', '1'), delivery.headers, secret), WebhookVerificationError);
  assert.throws(() => verifyWebhook(delivery.rawBody, delivery.headers, 'whsec_' + Buffer.alloc(32, 7).toString('base64')), WebhookVerificationError);
});
