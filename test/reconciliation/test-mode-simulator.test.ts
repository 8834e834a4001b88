import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, post } from '../helpers/app';
import { createProduct, createSession, owner, submitPayForm } from '../checkout/factory';
import { TEST_CARDS } from '../../src/payments';
import { reconcileCommand } from '../../src/reconciliation/cli';

/**
 * Reconciliation can be tried in test mode before going live: the simulator answers the reconciliation read
 * (PaymentProvider.listTransactions) with the approvals and cancels it made, so a store's test payments and refunds
 * reconcile with no difference, and a payment the simulator never made is found.
 */
test('test mode on the simulator: a run compares the day\'s test payments and refunds, finds nothing wrong, and finds what is', async () => {
  const t = await createTestApp();
  try {
    const s = await createTestStore(t);
    const product = await createProduct(t, s, { price: 11_000 });
    const orders: string[] = [];
    for (let i = 0; i < 2; i++) {
      const session = await createSession(t, s.key, { productId: product.id, successUrl: 'http://localhost/ok' });
      const paid = await submitPayForm(t, session, { cardNumber: TEST_CARDS.success });
      assert.equal(paid.statusCode, 303, paid.body);
      orders.push(new URL(String(paid.headers.location)).searchParams.get('order_id')!);
      t.clock.advance(60_000);
    }
    const refund = await t.app.inject({ method: 'POST', url: `/v1/orders/${orders[0]}/refund`, headers: post(s.key), payload: { amount: 4_000 } });
    assert.equal(refund.statusCode, 200, refund.body);
    t.clock.advance(60_000);

    const day = new Date(t.clock.now().getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
    const run = async () => {
      const started = await t.app.inject({ method: 'POST', url: '/admin/v1/reconciliations', headers: owner(s), payload: { mode: 'test', date: day } });
      assert.equal(started.statusCode, 202, started.body);
      await t.deps.worker.runOnce();
      return (await t.app.inject({ url: `/admin/v1/reconciliations/${started.json().id}`, headers: owner(s) })).json();
    };
    const clean = await run();
    assert.equal(clean.status, 'completed', JSON.stringify(clean));
    assert.equal(clean.gatewayTransactions, 3, 'two approvals and a cancel');
    assert.equal(clean.differenceCount, 0, JSON.stringify(clean.differences));

    // An order our books call paid that the simulator never approved: reported, and nothing of ours changed.
    await t.db.updateTable('orders').set({ provider_payment_key: 'sim_forged_key' }).where('id', '=', orders[1]).execute();
    const drift = await run();
    assert.equal(drift.status, 'completed');
    assert.ok(drift.differences.some((d: any) => d.orderId === orders[1]), JSON.stringify(drift.differences));
    const row = await t.db.selectFrom('orders').select('status').where('id', '=', orders[1]).executeTakeFirstOrThrow();
    assert.equal(row.status, 'paid');

    // The CLI is another process, which sees none of the simulator's ledger: refused with the way to do it instead.
    await assert.rejects(reconcileCommand(t.deps, ['--store', s.storeId, '--date', day, '--mode', 'test']), /RECONCILIATION_NOT_AVAILABLE: test mode's simulator keeps its ledger in the running server's memory/);
  } finally {
    await t.close();
  }
});
