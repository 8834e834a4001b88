import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, createTestApp } from '../helpers/app';
import { signIn } from './helpers';
import { writeEvent } from '../../src/platform/events';
import { runMailOnce } from '../../src/mail/dispatch';
import { getBuyerMails } from '../../src/mail/settings';

test('dashboard: Settings > 구매자 메일 turns kinds off by form (audited), the mailbox lists test-mode mails and shows one sandboxed; roles apply', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, {});
  const s = owner.store;

  const page = await t.app.inject({ url: '/dashboard/settings/mails', headers: owner.headers });
  assert.equal(page.statusCode, 200, page.body);
  assert.equal((page.body.match(/name="kinds"[^>]* checked/g) ?? []).length, 15, 'every kind on by default (13 + plan_change_offered + virtual_account_issued)');
  // Unchecked boxes are not sent: only refund_completed stays on.
  const form = new URLSearchParams({ _csrf: owner.csrf, kinds: 'refund_completed' }).toString();
  const saved = await t.app.inject({ method: 'POST', url: '/dashboard/settings/mails', headers: { ...owner.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: form });
  assert.equal(saved.statusCode, 200, saved.body);
  const now = await getBuyerMails(t.db, s.storeId);
  assert.equal(now.refund_completed, true);
  assert.equal(now.order_confirmation, false);
  const log = (await t.app.inject({ url: '/admin/v1/audit-log?action=settings.buyer_mails_updated', headers: bearer(s.ownerToken) })).json().data;
  assert.equal(log.length, 1);
  assert.ok(log[0].details.off.includes('order_confirmation'));
  const again = new URLSearchParams([['_csrf', owner.csrf], ['kinds', 'order_confirmation'], ['kinds', 'refund_completed']]).toString();
  await t.app.inject({ method: 'POST', url: '/dashboard/settings/mails', headers: { ...owner.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: again });
  assert.equal((await getBuyerMails(t.db, s.storeId)).order_confirmation, true);

  await t.db.transaction().execute((trx) =>
    writeEvent(trx, t.clock, { storeId: s.storeId, mode: 'test', type: 'order.paid', data: { id: 'ord_none', buyerEmail: 'buyer@example.com', productName: '<b>전자책</b>', amount: 1000, paidAt: t.clock.now().toISOString() } }),
  );
  await runMailOnce(t.deps, t.clock.now());
  const list = await t.app.inject({ url: '/dashboard/developers/mailbox', headers: owner.headers });
  assert.equal(list.statusCode, 200);
  assert.match(list.body, /buyer@example\.com/);
  const id = /href="\/dashboard\/developers\/mailbox\/(mail_[^"]+)"/.exec(list.body)![1];
  const detail = await t.app.inject({ url: `/dashboard/developers/mailbox/${id}`, headers: owner.headers });
  assert.equal(detail.statusCode, 200);
  assert.match(detail.body, /<iframe [^>]*sandbox=""[^>]*srcdoc="/);
  assert.ok(!detail.body.includes('<b>전자책</b>'), 'the mail is escaped into srcdoc, never inlined into the page');
  assert.ok(detail.body.includes('&amp;lt;b&amp;gt;'), 'escaped twice: once in the mail, once for the attribute');

  const support = await signIn(t, { role: 'support', store: s });
  assert.equal((await t.app.inject({ url: '/dashboard/developers/mailbox', headers: support.headers })).statusCode, 403);
  assert.equal((await t.app.inject({ url: '/dashboard/settings/mails', headers: support.headers })).statusCode, 403);
  const developer = await signIn(t, { role: 'developer', store: s });
  assert.equal((await t.app.inject({ url: '/dashboard/developers/mailbox', headers: developer.headers })).statusCode, 200);
});
