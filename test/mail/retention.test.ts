import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, signInAs } from '../dashboard/helpers';
import { writeEvent } from '../../src/platform/events';
import { runMailOnce } from '../../src/mail/dispatch';
import { pruneMailsOnce } from '../../src/mail/retention';
import { DAY } from '../../src/platform/clock';

test('mail_outbox retention: kept (test) and sent mails go 30 days after they were settled; the mailbox keeps showing younger ones; pending and unconfigured mails stay', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  assert.equal(t.deps.config.mailRetentionDays, 30, 'default');
  assert.equal(t.deps.config.smtpUrl, null, 'live mails park as unconfigured here');
  const owner = await signIn(t, {});
  const s = owner.store;
  const paid = (mode: 'test' | 'live', id: string, email: string) =>
    t.db.transaction().execute((trx) =>
      writeEvent(trx, t.clock, { storeId: s.storeId, mode, type: 'order.paid', data: { id, buyerEmail: email, productName: '전자책', amount: 1000, paidAt: t.clock.now().toISOString() } }),
    );
  const statusOf = async (email: string) => (await t.db.selectFrom('mail_outbox').select('status').where('recipient', '=', email).execute()).map((r) => r.status);
  // Signed in afresh each time: the clock moves past a session's lifetime.
  const mailbox = async () => {
    const session = await signInAs(t, owner.email, owner.password);
    const res = await t.app.inject({ url: '/dashboard/developers/mailbox', headers: session.headers });
    assert.equal(res.statusCode, 200);
    return res.body;
  };

  await paid('test', 'ord_old', 'old@example.com');
  await paid('live', 'ord_live', 'parked@example.com');
  await runMailOnce(t.deps, t.clock.now());
  assert.deepEqual(await statusOf('old@example.com'), ['captured']);
  assert.deepEqual(await statusOf('parked@example.com'), ['unconfigured']);
  // A live mail that failed for good (settled today, as the dispatcher leaves one after its last retry).
  await t.db.updateTable('mail_outbox').set({ recipient: 'failed@example.com' }).where('recipient', '=', 'parked@example.com').execute();
  await paid('live', 'ord_live2', 'parked@example.com');
  await runMailOnce(t.deps, t.clock.now());
  await t.db.updateTable('mail_outbox').set({ status: 'failed' }).where('recipient', '=', 'failed@example.com').execute();

  t.clock.advance(10 * DAY);
  await paid('test', 'ord_young', 'young@example.com');
  await runMailOnce(t.deps, t.clock.now());
  // Written but never sent: pending, however old it gets.
  await paid('test', 'ord_pending', 'pending@example.com');

  t.clock.advance(20 * DAY - 1);
  assert.equal(await pruneMailsOnce(t.deps, t.clock.now()), 0, 'a mail 30 days old to the millisecond is still kept');
  assert.match(await mailbox(), /old@example\.com/);

  t.clock.advance(2);
  assert.equal(await pruneMailsOnce(t.deps, t.clock.now()), 2, 'the captured test mail and the failed live mail');
  assert.deepEqual(await statusOf('old@example.com'), []);
  assert.deepEqual(await statusOf('failed@example.com'), []);
  assert.deepEqual(await statusOf('young@example.com'), ['captured']);
  assert.deepEqual(await statusOf('pending@example.com'), ['pending']);
  assert.deepEqual(await statusOf('parked@example.com'), ['unconfigured'], 'a live mail waiting for SMTP is never dropped');
  const page = await mailbox();
  assert.doesNotMatch(page, /old@example\.com/);
  assert.match(page, /young@example\.com/, 'the test mailbox still lists the recent mails');

  // Through the registered task, with MAIL_RETENTION_DAYS shorter: the young captured mail (20 days) goes too.
  await pruneMailsOnce({ db: t.db, config: { ...t.deps.config, mailRetentionDays: 7 } }, t.clock.now());
  assert.deepEqual(await statusOf('young@example.com'), []);
  assert.deepEqual(await statusOf('pending@example.com'), ['pending']);
});

test('the mail.prune task is registered with the workers', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, {});
  await t.db.transaction().execute((trx) =>
    writeEvent(trx, t.clock, { storeId: owner.store.storeId, mode: 'test', type: 'order.paid', data: { id: 'ord_1', buyerEmail: 'a@example.com', productName: '전자책', amount: 1000, paidAt: t.clock.now().toISOString() } }),
  );
  await t.deps.worker.runOnce();
  assert.equal((await t.db.selectFrom('mail_outbox').select('status').execute())[0]?.status, 'captured');
  t.clock.advance(30 * DAY + 1);
  await t.deps.worker.runOnce();
  assert.equal((await t.db.selectFrom('mail_outbox').select('id').execute()).length, 0);
});
