import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { allowLoopbackPort, createTestApp, createTestStore, bearer } from '../helpers/app';
import { createProduct, createSession, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments/simulator-cards';
import { LicenseClient, LicenseVerificationError } from '../../packages/license-client/src/index';

/**
 * The whole path a seller and an app developer rely on, across modules and over real HTTP: a licensed product,
 * a checkout session, a test-card payment, the signed order.paid webhook, the issued license in the server API,
 * and the license client library activating and verifying it against the running service.
 */
test('checkout → order.paid webhook → license → client library activate/verify over HTTP', async () => {
  const t = await createTestApp();
  const received: Array<{ body: string; headers: Record<string, string> }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ body, headers: req.headers as Record<string, string> });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  allowLoopbackPort((receiver.address() as any).port);
  try {
    const s = await createTestStore(t);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });

    // Seller: a product that issues licenses (3 devices) and a webhook endpoint for paid orders.
    const product = await createProduct(t, s, { name: '데스크톱 앱', price: 49_000, license: { mode: 'service', maxActivations: 3, validityDays: null } });
    const ep = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/webhook-endpoints',
      headers: bearer(s.ownerToken),
      payload: { mode: 'test', url: `http://127.0.0.1:${(receiver.address() as any).port}/hooks`, eventTypes: ['order.paid'] },
    });
    assert.equal(ep.statusCode, 201, ep.body);
    const secret = ep.json().secret as string;

    // Seller's server creates a session; the buyer pays with the success test card.
    const session = await createSession(t, s.key, { productId: product.id, metadata: { userId: '42' }, successUrl: 'https://example.com/done?from=shop' });
    const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
    assert.equal(paid.statusCode, 303, paid.body);
    const redirect = new URL(paid.headers.location as string);
    assert.equal(redirect.searchParams.get('from'), 'shop');
    const orderId = redirect.searchParams.get('order_id')!;
    assert.equal(redirect.searchParams.get('session_id'), session.id);

    // The order is readable with its metadata; the webhook arrives signed and verifiable by the standard library.
    const order = (await t.app.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.key) })).json();
    assert.equal(order.status, 'paid');
    assert.equal(order.amount, 49_000);
    assert.deepEqual(order.metadata, { userId: '42' });
    await t.deps.worker.runOnce();
    assert.equal(received.length, 1);
    const event = new Webhook(secret).verify(received[0].body, received[0].headers) as any;
    assert.equal(event.type, 'order.paid');
    assert.equal(event.data.id, orderId);
    assert.deepEqual(event.data.metadata, { userId: '42' });
    assert.equal(received[0].headers['webhook-id'], event.id);

    // The license exists with its key in the server API.
    const list = (await t.app.inject({ url: '/v1/licenses', headers: bearer(s.key) })).json();
    const lic = list.data.find((l: any) => l.orderId === orderId);
    assert.ok(lic, 'a license was issued for the order');
    assert.equal(lic.status, 'active');
    assert.equal(lic.maxActivations, 3);

    // The app activates and verifies it with the client library, which checks every signature.
    const client = new LicenseClient({ baseUrl: address, productId: product.id, now: () => t.clock.now() });
    const activated = await client.activate(lic.key, { label: '테스트 PC' });
    assert.equal(activated.status, 'active');
    assert.equal(activated.activationCount, 1);
    const verified = await client.verify(lic.key, { activationId: activated.activation!.id });
    assert.equal(verified.status, 'active');
    assert.equal(verified.fromCache, false);

    // An app whose clock disagrees by more than 5 minutes refuses the (correctly signed) answer as stale.
    const skewed = new LicenseClient({ baseUrl: address, productId: product.id, now: () => new Date(t.clock.now().getTime() + 10 * 60_000) });
    await assert.rejects(skewed.verify(lic.key), (e: unknown) => e instanceof LicenseVerificationError);

    const after = (await t.app.inject({ url: `/v1/licenses/${lic.id}`, headers: bearer(s.key) })).json();
    assert.equal(after.activationCount, 1);
    assert.equal(after.activations[0].label, '테스트 PC');
  } finally {
    await new Promise((r) => receiver.close(r));
    await t.close();
  }
});
