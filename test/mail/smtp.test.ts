import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestDatabase, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { closedPort, parseMail, startSmtp, type ReceivedMail } from '../dashboard/smtp-helpers';
import { createProduct } from '../licenses/factory';
import { insertPaidOrder } from '../refunds/factory';
import { loadOrderView } from '../../src/orders/service';
import { writeEvent } from '../../src/platform/events';
import type { Mode } from '../../src/platform/tables';
import { runMailOnce } from '../../src/mail/dispatch';
import { RETRY_SCHEDULE_MS } from '../../src/jobs/queue';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let t: TestApp;
let t2: TestApp;
let s: TestStore;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

const FROM = '테스트 상점 <no-reply@example.com>';

before(async () => {
  smtp = await startSmtp();
  db = await createTestDatabase();
  t = await createTestApp({ database: db, config: { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: FROM } });
  // A second app (a second worker) on the same database and SMTP server.
  t2 = await createTestApp({ database: db, clock: t.clock, config: { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: FROM } });
  s = await createTestStore(t);
});
after(async () => {
  await t2.close();
  await t.close();
  await db.drop();
  await smtp.close();
});

/** A paid order with a service licence and its order.paid event (and so its mail), as checkout writes them. */
async function paidOrder(mode: Mode): Promise<string> {
  const productId = await createProduct(t, s.storeId, { mode, name: '라이브 앱' });
  const orderId = await insertPaidOrder(t, s.storeId, productId, { mode, licenses: true });
  await t.db.transaction().execute(async (trx) => {
    const order = (await loadOrderView(trx, orderId, t.deps))!;
    await writeEvent(trx, t.clock, { storeId: s.storeId, mode, type: 'order.paid', data: { ...order, subscriptionEvent: null } });
  });
  return orderId;
}
const mailOf = (orderId: string) => t.db.selectFrom('mail_outbox').selectAll().where(({ ref }) => ref('data', '->>').key('id' as never), '=', orderId).executeTakeFirstOrThrow();

/** The parts of a multipart message the local server received: its text/plain and text/html bodies. */
function parts(m: ReceivedMail): { text: string; html: string } {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(m.raw)?.[1];
  assert.ok(boundary, 'a multipart message (text and HTML)');
  const out = { text: '', html: '' };
  for (const part of m.raw.split(`--${boundary}`).slice(1)) {
    const body = parseMail(part.replace(/^\r\n/, '')).text;
    if (/content-type:\s*text\/plain/i.test(part)) out.text = body;
    if (/content-type:\s*text\/html/i.test(part)) out.html = body;
  }
  return out;
}

test('live: the mail goes to SMTP with subject, text and HTML parts, the footer, the licence key, and nothing that tracks', async () => {
  const orderId = await paidOrder('live');
  assert.equal((await mailOf(orderId)).status, 'pending');
  await runMailOnce(t.deps, t.clock.now());
  const row = await mailOf(orderId);
  assert.equal(row.status, 'sent');
  assert.equal(row.html_body, null, 'a live mail keeps no body at rest (licence keys)');
  const m = smtp.mails.find((x) => x.to.includes(row.recipient))!;
  assert.ok(m);
  assert.equal(m.subject, '[테스트 상점] 주문이 완료되었습니다');
  const { text, html } = parts(m);
  const key = (await loadOrderView(t.db, orderId, t.deps))!.licenses[0].key!;
  for (const body of [text, html]) {
    assert.ok(body.includes(key), 'licence key');
    assert.ok(body.includes('사업자등록번호 123-45-67891'), 'footer');
    assert.ok(body.includes(`/receipt/${orderId}?t=`), 'receipt link');
  }
  assert.doesNotMatch(html, /<img|<script|utm_|track/i, 'no pixels, scripts or tracked links');
  const links = [...html.matchAll(/href="([^"]+)"/g)].map((x) => x[1]);
  assert.ok(links.every((l) => l.startsWith(t.deps.config.publicBaseUrl) || l.startsWith('tel:') || l.startsWith('mailto:')), links.join(' '));
  smtp.mails.length = 0;
});

test('SMTP down: the mail waits (pending, retried on the schedule) and is sent once the server is up; nothing lost', async () => {
  const up = t.deps.config.smtpUrl;
  const down = `smtp://127.0.0.1:${await closedPort()}`;
  t.deps.config.smtpUrl = down;
  try {
    const orderId = await paidOrder('live');
    await runMailOnce(t.deps, t.clock.now());
    let row = await mailOf(orderId);
    assert.equal(row.status, 'pending');
    assert.equal(row.attempts, 1);
    assert.match(row.last_error!, /ECONNREFUSED|connect/i);
    assert.equal(row.next_attempt_at.getTime(), t.clock.now().getTime() + RETRY_SCHEDULE_MS[0]);
    // Not before its time.
    await runMailOnce(t.deps, t.clock.now());
    assert.equal((await mailOf(orderId)).attempts, 1);
    t.clock.advance(RETRY_SCHEDULE_MS[0]);
    await runMailOnce(t.deps, t.clock.now());
    assert.equal((await mailOf(orderId)).attempts, 2);
    assert.equal(smtp.mails.length, 0);

    t.deps.config.smtpUrl = up; // the server is back
    t.clock.advance(RETRY_SCHEDULE_MS[1]);
    await runMailOnce(t.deps, t.clock.now());
    row = await mailOf(orderId);
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 3);
    assert.equal(smtp.mails.length, 1);
    assert.ok(smtp.mails[0].to.includes(row.recipient));
  } finally {
    t.deps.config.smtpUrl = up;
    smtp.mails.length = 0;
  }
});

test('two workers (two apps on one database) racing over the same mails send each exactly once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(await paidOrder('live'));
  const [a, b] = await Promise.all([runMailOnce(t.deps, t.clock.now(), { limit: 4 }), runMailOnce(t2.deps, t.clock.now(), { limit: 4 })]);
  await Promise.all([runMailOnce(t.deps, t.clock.now()), runMailOnce(t2.deps, t.clock.now())]);
  assert.ok(a + b >= 6, `both ran (${a} + ${b})`);
  for (const id of ids) assert.equal((await mailOf(id)).status, 'sent');
  assert.equal(smtp.mails.length, 6, 'six mails, none twice');
  smtp.mails.length = 0;
});

test('test mode never touches SMTP: the mail is rendered and kept as captured', async () => {
  const orderId = await paidOrder('test');
  await runMailOnce(t.deps, t.clock.now());
  const row = await mailOf(orderId);
  assert.equal(row.status, 'captured');
  assert.ok(row.html_body && row.text_body && row.subject);
  assert.equal(smtp.mails.length, 0);
});

test('live mode without SMTP_URL: the mail is parked as unconfigured, not lost, and sent once SMTP is configured', async () => {
  const up = t.deps.config.smtpUrl;
  t.deps.config.smtpUrl = null;
  try {
    const orderId = await paidOrder('live');
    await runMailOnce(t.deps, t.clock.now());
    assert.equal((await mailOf(orderId)).status, 'unconfigured');
    t.deps.config.smtpUrl = up;
    t.clock.advance(3_600_000);
    await runMailOnce(t.deps, t.clock.now());
    assert.equal((await mailOf(orderId)).status, 'sent');
    assert.equal(smtp.mails.length, 1);
  } finally {
    t.deps.config.smtpUrl = up;
    smtp.mails.length = 0;
  }
});
