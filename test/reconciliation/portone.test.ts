import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore } from '../helpers/app';
import { createProduct, createSession, owner, payPath, submitPayForm } from '../checkout/factory';
import { updateModeSettings } from '../../src/stores/service';
import { startFakePortOne } from '../payments/fake-portone';
import { runDailyReconciliation } from '../../src/reconciliation/service';

/**
 * Issue 42, part four: a store on PortOne reconciles through the same report. The run reads PortOne's ledger (the fake's
 * /payment-events-by-cursor, from PortOne's documentation) and compares it with our books; a cancel made only in
 * PortOne's console is a difference.
 */
test('a store on PortOne: a run of the day reads PortOne\'s payment events, finds the paid order in order, and a console cancel as a difference', async () => {
  const t = await createTestApp();
  const fake = await startFakePortOne({ clock: t.clock });
  try {
    (t.deps.config as { portoneApiBaseUrl: string }).portoneApiBaseUrl = fake.baseUrl;
    const s = await createTestStore(t);
    await updateModeSettings(t.deps, s.storeId, 'test', { paymentProvider: 'portone', portoneStoreId: fake.storeId, portoneApiSecret: fake.apiSecret, portoneChannelKeys: { card: 'channel-key-9c0b2a4e-1f1d-4c55-9a3e-0b4c3d2e1f00' } });
    const product = await createProduct(t, s, { price: 9_000 });
    const session = await createSession(t, s.key, { productId: product.id });
    const launch = await submitPayForm(t, session, { method: 'card' });
    const paymentId = JSON.parse(launch.body.match(/var cfg = (\{.*?\});\n/s)![1]).request.paymentId as string;
    assert.equal(fake.browserPay({ paymentId, amount: 9_000 }).ok, true);
    const back = await t.app.inject({ url: `${payPath(session)}/portone/return?paymentId=${paymentId}` });
    assert.ok([200, 303].includes(back.statusCode), back.body.slice(0, 200));
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
    assert.equal(clean.gatewayTransactions, 1, JSON.stringify(clean));
    assert.equal(clean.differenceCount, 0, JSON.stringify(clean.differences));

    // The daily scheduler starts a run of the day before for this PortOne store too (its API secret is set).
    const next = new Date(t.clock.now().getTime() + 86_400_000);
    const started = await runDailyReconciliation(t.deps, new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth(), next.getUTCDate(), 1)));
    assert.ok(started >= 1, 'the daily run included the PortOne store');
    const jobRun = await t.db.selectFrom('reconciliations').select(['store_id', 'source']).where('store_id', '=', s.storeId).where('source', '=', 'job').execute();
    assert.equal(jobRun.length, 1);
    await t.deps.worker.runOnce();

    fake.cancelInConsole(paymentId, 2_000, '콘솔 부분 취소');
    t.clock.advance(60_000);
    const drift = await run();
    assert.equal(drift.status, 'completed', JSON.stringify(drift));
    assert.ok(drift.differences.some((d: any) => d.orderId === paymentId), JSON.stringify(drift.differences));
  } finally {
    await t.close();
    await fake.close();
  }
});
