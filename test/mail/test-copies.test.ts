import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser, type ParsedMail } from 'mailparser';
import { createTestApp, createTestStore, bearer, type TestApp, type TestStore } from '../helpers/app';
import { closedPort, startSmtp } from '../dashboard/smtp-helpers';
import { createProduct } from '../licenses/factory';
import { insertPaidOrder } from '../refunds/factory';
import { loadOrderView } from '../../src/orders/service';
import { writeEvent } from '../../src/platform/events';
import type { Mode } from '../../src/platform/tables';
import { runMailOnce } from '../../src/mail/dispatch';
import { createMember, disableMember } from '../../src/dashboard/members';
import { postForm, signInAs } from '../dashboard/helpers';

// Test-mode mails in the seller's own inbox: a [테스트] copy through SMTP to the store's listed member addresses, never
// to a buyer; and the mailbox's "send to me". The SMTP server is a real one (smtp-server) on a local port, and what it
// received is parsed by a MIME parser (mailparser), as a mail client would read it.

let t: TestApp;
let s: TestStore;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const FROM = '테스트 상점 <no-reply@example.com>';
const BASE = 'https://pay.example.com';
let ownerPassword: string;

before(async () => {
  smtp = await startSmtp();
  t = await createTestApp({ config: { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: FROM, publicBaseUrl: BASE } });
  s = await createTestStore(t);
  const actor = { kind: 'operator' as const, id: null, name: null };
  ownerPassword = (await createMember(t.deps, { storeId: s.storeId, email: 'owner@seller.example', name: '김대표', role: 'owner' }, actor)).password;
  await createMember(t.deps, { storeId: s.storeId, email: 'dev@seller.example', name: '이개발', role: 'developer' }, actor);
});
after(async () => {
  await t.close();
  await smtp.close();
});

/** A paid order and its order.paid event (and so its buyer mail), as checkout writes them. */
async function paidOrder(mode: Mode): Promise<string> {
  const productId = await createProduct(t, s.storeId, { mode, name: '환불 테스트 상품' });
  const orderId = await insertPaidOrder(t, s.storeId, productId, { mode, licenses: true });
  await t.db.transaction().execute(async (trx) => {
    const order = (await loadOrderView(trx, orderId, t.deps))!;
    await writeEvent(trx, t.clock, { storeId: s.storeId, mode, type: 'order.paid', data: { ...order, subscriptionEvent: null } });
  });
  return orderId;
}
const mailOf = (orderId: string) => t.db.selectFrom('mail_outbox').selectAll().where(({ ref }) => ref('data', '->>').key('id' as never), '=', orderId).executeTakeFirstOrThrow();
const setRecipients = (list: string[]) => t.app.inject({ method: 'PATCH', url: '/admin/v1/store', headers: bearer(s.ownerToken), payload: { testMailRecipients: list } });

test('console: only the e-mails of active dashboard members may receive test mails; a buyer address is refused and nothing changes', async () => {
  const refused = await setRecipients(['owner@seller.example', 'buyer@example.com']);
  assert.equal(refused.statusCode, 400, refused.body);
  assert.equal(refused.json().code, 'VALIDATION_FAILED');
  assert.deepEqual(refused.json().details.fields.map((f: { field: string }) => f.field), ['testMailRecipients.1']);
  assert.deepEqual((await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().testMailRecipients, []);
  const ok = await setRecipients(['Owner@Seller.example']);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(ok.json().testMailRecipients, ['owner@seller.example']);
});

test('a test-mode mail is kept and its [테스트] copy reaches the listed inbox through SMTP, a clean multipart UTF-8 message with absolute links; the buyer gets nothing', async () => {
  smtp.mails.length = 0;
  const orderId = await paidOrder('test');
  const buyer = (await mailOf(orderId)).recipient;
  await runMailOnce(t.deps, t.clock.now());
  const row = await mailOf(orderId);
  assert.equal(row.status, 'captured', 'still kept for the mailbox');
  assert.ok(row.html_body && row.subject);
  assert.deepEqual(row.test_copy_recipients, ['owner@seller.example']);
  assert.ok(row.test_copy_sent_at);
  assert.equal(row.test_copy_error, null);

  assert.equal(smtp.mails.length, 1, 'one copy, to the one listed address');
  const got = smtp.mails[0]!;
  assert.deepEqual(got.to, ['owner@seller.example']);
  assert.ok(!smtp.mails.some((m) => m.to.includes(buyer)), 'never to the buyer');

  const mail: ParsedMail = await simpleParser(got.raw);
  assert.equal(mail.subject, `[테스트] ${row.subject}`);
  assert.match(mail.subject!, /^\[테스트\] \[테스트 상점\] /);
  assert.equal(mail.to && !Array.isArray(mail.to) ? mail.to.value[0]!.address : null, 'owner@seller.example');
  assert.equal(mail.from!.value[0]!.name, '테스트 상점');
  assert.ok(mail.date instanceof Date && !Number.isNaN(mail.date.getTime()), 'a Date header');
  assert.match(mail.messageId ?? '', /^<.+@.+>$/, 'a Message-ID');
  assert.match(String(mail.headers.get('content-type') && (mail.headers.get('content-type') as { value: string }).value), /multipart\/alternative/);
  assert.ok(mail.text && mail.html, 'a text part and an HTML part');
  for (const body of [mail.text!, mail.html as string]) {
    assert.ok(body.includes('테스트 모드 메일의 사본입니다'), 'says it is a test copy');
    assert.ok(body.includes(buyer), 'names the buyer it stands in for');
    assert.ok(body.includes('환불 테스트 상품') && body.includes('주문'), 'Korean intact');
    assert.ok(body.includes(`${BASE}/receipt/${orderId}?t=`), 'the receipt link, absolute');
  }
  assert.match(mail.text!, /\d{4}년 \d{1,2}월 \d{1,2}일 (오전|오후) \d{1,2}:\d{2} KST/, 'times say their zone');
  const links = [...(mail.html as string).matchAll(/href="([^"]+)"/g)].map((x) => x[1]!);
  assert.ok(links.length > 0 && links.every((l) => l.startsWith(`${BASE}/`) || l.startsWith('mailto:') || l.startsWith('tel:')), links.join(' '));
});

test('live mode is untouched: its mail goes to the buyer once, and no copy goes anywhere', async () => {
  smtp.mails.length = 0;
  const orderId = await paidOrder('live');
  await runMailOnce(t.deps, t.clock.now());
  const row = await mailOf(orderId);
  assert.equal(row.status, 'sent');
  assert.equal(row.test_copy_recipients, null);
  assert.deepEqual(smtp.mails.map((m) => m.to), [[row.recipient]]);
  assert.doesNotMatch(smtp.mails[0]!.subject, /테스트\]/);
});

test('SMTP down: the test mail is still kept; the copy\'s failure is recorded on it, nothing thrown', async () => {
  const up = t.deps.config.smtpUrl;
  t.deps.config.smtpUrl = `smtp://127.0.0.1:${await closedPort()}`;
  try {
    const orderId = await paidOrder('test');
    await runMailOnce(t.deps, t.clock.now());
    const row = await mailOf(orderId);
    assert.equal(row.status, 'captured');
    assert.equal(row.test_copy_sent_at, null);
    assert.match(row.test_copy_error!, /ECONNREFUSED|connect/i);
  } finally {
    t.deps.config.smtpUrl = up;
  }
});

test('a listed member disabled later gets no more copies', async () => {
  assert.equal((await setRecipients(['owner@seller.example', 'dev@seller.example'])).statusCode, 200);
  const dev = await t.db.selectFrom('store_members').select('id').where('email', '=', 'dev@seller.example').executeTakeFirstOrThrow();
  await disableMember(t.deps, s.storeId, dev.id, { kind: 'operator', id: null, name: null });
  smtp.mails.length = 0;
  const orderId = await paidOrder('test');
  await runMailOnce(t.deps, t.clock.now());
  assert.deepEqual((await mailOf(orderId)).test_copy_recipients, ['owner@seller.example']);
  assert.deepEqual(smtp.mails.map((m) => m.to), [['owner@seller.example']]);
});

test('dashboard: the mail settings list the members to tick; the mailbox sends one kept mail to the signed-in member only', async () => {
  assert.equal((await setRecipients([])).statusCode, 200);
  const orderId = await paidOrder('test');
  smtp.mails.length = 0;
  await runMailOnce(t.deps, t.clock.now());
  assert.equal(smtp.mails.length, 0, 'no copies once the list is empty');
  const row = await mailOf(orderId);
  const session = await signInAs(t, 'owner@seller.example', ownerPassword);

  const settings = await t.app.inject({ url: '/dashboard/settings/mails', headers: session.headers });
  assert.equal(settings.statusCode, 200);
  assert.ok(settings.body.includes('value="owner@seller.example"') && !settings.body.includes('value="dev@seller.example"'), 'active members only');
  const saved = await postForm(t, session, '/dashboard/settings/mails/test-copies', { to: 'owner@seller.example' });
  assert.equal(saved.statusCode, 200, saved.body);
  assert.deepEqual((await t.app.inject({ url: '/admin/v1/store', headers: bearer(s.ownerToken) })).json().testMailRecipients, ['owner@seller.example']);

  const page = await t.app.inject({ url: `/dashboard/developers/mailbox/${row.id}`, headers: session.headers });
  assert.ok(page.body.includes('data-testid="send-to-me"'));
  const sent = await postForm(t, session, `/dashboard/developers/mailbox/${row.id}/send-to-me`, {});
  assert.equal(sent.statusCode, 200, sent.body);
  assert.ok(sent.body.includes('owner@seller.example'));
  assert.equal(smtp.mails.length, 1);
  assert.deepEqual(smtp.mails[0]!.to, ['owner@seller.example']);
  const parsed = await simpleParser(smtp.mails[0]!.raw);
  assert.equal(parsed.subject, `[테스트] ${row.subject}`);
  assert.ok((await mailOf(orderId)).test_copy_sent_at, 'recorded on the mail');
});
