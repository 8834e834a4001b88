import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app';
import { createSubscriptionProduct, subscribe } from '../subscriptions/factory';
import { owner } from '../checkout/factory';
import { runMailOnce } from '../../src/mail/dispatch';
import { activate } from '../../src/licenses/app-service';
import { purgeSignIns } from '../../src/buyers/service';
import { Jar, askLink, csrfOf, get, linkIn, postForm, signInMail, useLink } from './helpers';

/**
 * The buyer's own door (issue 38, first "Done when"): a buyer who paid for a subscription through the hosted page
 * reaches their orders, key and subscription from the receipt and the mails alone, and cancels there, with no call
 * to the API on the buyer's side. Sign-in is by a one-time mailed link (test mode: the dashboard's mailbox).
 */
let t: TestApp;
let s: TestStore;
let sub: { orderId: string; subscriptionId: string };
let productId: string;
const BUYER = 'Buyer.One@Example.com';
let base: string;

before(async () => {
  t = await createTestApp();
  s = await createTestStore(t);
  base = `/s/${s.storeId}/test/orders`;
  const p = await createSubscriptionProduct(t, s, { name: '클라우드 백업', license: { mode: 'service' } });
  productId = p.id;
  sub = await subscribe(t, s, { productId, buyerEmail: BUYER });
  await t.deps.worker.runOnce();
});
after(async () => {
  await t.close();
});

test('the receipt of a subscription order links to the store\'s buyer page (구독 관리 with no seller code)', async () => {
  const o = await t.db.selectFrom('orders').select('receipt_token').where('id', '=', sub.orderId).executeTakeFirstOrThrow();
  const res = await t.app.inject({ url: `/receipt/${sub.orderId}?t=${o.receipt_token}` });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, new RegExp(`<a id="buyer-page-link" href="${base}">내 구매내역</a>`));
  assert.doesNotMatch(res.body, /판매자가 제공하는 구독 관리 페이지/);
  const en = await t.app.inject({ url: `/receipt/${sub.orderId}?t=${o.receipt_token}&lang=en` });
  assert.match(en.body, new RegExp(`href="${base}\\?lang=en">My orders</a>`));
});

test('the console tells the seller the buyer page of each mode (the URL to link from their site)', async () => {
  const res = await t.app.inject({ url: '/admin/v1/store', headers: owner(s) });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().settings.test.buyerPageUrl, `${t.deps.config.publicBaseUrl}/s/${s.storeId}/test/orders`);
  assert.equal(res.json().settings.live.buyerPageUrl, `${t.deps.config.publicBaseUrl}/s/${s.storeId}/orders`);
  assert.equal((await t.app.inject({ url: new URL(res.json().settings.live.buyerPageUrl).pathname })).statusCode, 200);
});

test('a buyer asks for a link, reads it in the test mailbox, signs in (address case aside) and sees the order, licence key and subscription', async () => {
  const jar = new Jar();
  const form = await get(t, jar, base);
  assert.equal(form.statusCode, 200);
  assert.match(form.body, /결제할 때 입력한 이메일 주소/);
  const sent = await postForm(t, jar, `${base}/sign-in`, { email: 'buyer.one@example.COM', csrf: csrfOf(form.body) });
  assert.equal(sent.statusCode, 200, sent.body);
  assert.match(sent.body, /메일을 확인해 주세요/);
  const mail = await signInMail(t, 'buyer.one@example.COM');
  assert.equal(mail.status, 'captured', 'test mode keeps the mail in the mailbox');
  const link = linkIn(mail.text_body);
  assert.ok(link, mail.text_body ?? '');
  assert.match(mail.text_body ?? '', /한 번만 쓸 수 있고 .* KST까지 열립니다/);
  // Only the hash is stored: the token in the mail appears nowhere in the database's link rows.
  const token = link.split('/').pop()!;
  const rows = await t.db.selectFrom('buyer_sign_in_links').selectAll().execute();
  assert.ok(rows.every((r) => r.token_hash !== token && !JSON.stringify(r).includes(token)));
  const outbox = await t.db.selectFrom('mail_outbox').select('data').where('id', '=', mail.id).executeTakeFirstOrThrow();
  assert.ok(!JSON.stringify(outbox.data).includes(token), 'the outbox row holds the link id, not the token');

  const signed = await useLink(t, jar, link);
  assert.equal(signed.statusCode, 303);
  assert.equal(signed.headers.location, base);
  const cookie = jar.last.find((l) => l.startsWith('buyer_session='))!;
  assert.ok(cookie, 'a session cookie is set');
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  assert.match(cookie, new RegExp(`Path=${base}(;|$)`));
  assert.doesNotMatch(cookie, /Secure/, 'http base URL: not Secure (an https base URL makes it Secure)');
  const sessionRow = await t.db.selectFrom('buyer_sessions').selectAll().executeTakeFirstOrThrow();
  assert.notEqual(sessionRow.token_hash, jar.cookies.get('buyer_session'), 'the session is stored hashed');

  const page = await get(t, jar, base);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /buyer\.one@example\.com\(으\)로 로그인됨/);
  assert.match(page.body, new RegExp(`data-order-id="${sub.orderId}"`));
  assert.match(page.body, new RegExp(`data-subscription-id="${sub.subscriptionId}"`));
  const lic = await t.db.selectFrom('licenses').select(['id']).where('order_id', '=', sub.orderId).executeTakeFirstOrThrow();
  assert.match(page.body, new RegExp(`<code id="key-${lic.id}" class="license-key"[^>]*>[A-Z0-9-]{10,}</code>`));
  assert.match(page.body, /data-copy="key-/);
  assert.match(page.body, /영수증 보기/);
  assert.match(page.body, /구독 관리<\/button>/);
});

async function signedIn(email: string): Promise<Jar> {
  const jar = new Jar();
  assert.equal((await askLink(t, jar, base, email)).statusCode, 200, 'within the hourly limit of the address');
  const r = await useLink(t, jar, linkIn((await signInMail(t, email)).text_body)!);
  assert.equal(r.statusCode, 303);
  return jar;
}

test('구독 관리 on the buyer page opens that subscription\'s portal (a fresh portal session), where the buyer cancels it', async () => {
  const jar = await signedIn(BUYER);
  const page = await get(t, jar, base);
  const go = await postForm(t, jar, `${base}/subscriptions/${sub.subscriptionId}/portal`, { csrf: csrfOf(page.body) });
  assert.equal(go.statusCode, 303, go.body);
  const portalPath = new URL(String(go.headers.location)).pathname;
  assert.match(portalPath, /^\/portal\/[A-Za-z0-9]+$/);
  const ps = await t.db.selectFrom('portal_sessions').selectAll().orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  assert.equal(ps.subscription_id, sub.subscriptionId);
  const portal = await t.app.inject({ url: portalPath });
  assert.equal(portal.statusCode, 200);
  const cancel = await t.app.inject({
    method: 'POST',
    url: `${portalPath}/subscriptions/${sub.subscriptionId}/cancel`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ timing: 'period_end', csrf: csrfOf(portal.body) }).toString(),
  });
  assert.ok(cancel.statusCode < 400, cancel.body);
  const row = await t.db.selectFrom('subscriptions').select(['cancel_at_period_end']).where('id', '=', sub.subscriptionId).executeTakeFirstOrThrow();
  assert.equal(row.cancel_at_period_end, true, 'the cancel made through the buyer page took effect');
  // Someone else's subscription id is refused (the portal service checks the buyer's address).
  const other = await subscribe(t, s, { productId, buyerEmail: 'other@example.com' });
  const foreign = await postForm(t, jar, `${base}/subscriptions/${other.subscriptionId}/portal`, { csrf: csrfOf(page.body) });
  assert.equal(foreign.statusCode, 303);
  assert.equal(foreign.headers.location, `${base}?error=portal`);
  // A form without the session's CSRF secret, or from another site, changes nothing.
  assert.equal((await postForm(t, jar, `${base}/subscriptions/${sub.subscriptionId}/portal`, { csrf: 'x'.repeat(32) })).statusCode, 403);
  assert.equal((await postForm(t, jar, `${base}/subscriptions/${sub.subscriptionId}/portal`, { csrf: csrfOf(page.body) }, { origin: 'https://evil.example' })).statusCode, 403);
});

test('the subscription-started mail carries a 구독 관리 link that opens that subscription\'s portal, with no API call', async () => {
  await runMailOnce(t.deps, t.clock.now());
  const mail = await t.db.selectFrom('mail_outbox').selectAll().where('kind', '=', 'subscription_started').where('recipient', '=', BUYER).executeTakeFirstOrThrow();
  const m = /구독 관리 \(카드 변경·해지\): (\S+)/.exec(mail.text_body ?? '');
  assert.ok(m, mail.text_body ?? '');
  assert.match(mail.html_body ?? '', /<a class="btn" href="[^"]+\/manage\/[^"]+">구독 관리/);
  const path = new URL(m[1]!).pathname;
  const open = await t.app.inject({ url: path });
  assert.equal(open.statusCode, 303);
  const portal = await t.app.inject({ url: new URL(String(open.headers.location)).pathname });
  assert.equal(portal.statusCode, 200);
  assert.match(portal.body, new RegExp(`data-subscription-id="${sub.subscriptionId}"`));
  // Opened again: another fresh session (the link is not used up).
  assert.equal((await t.app.inject({ url: path })).statusCode, 303);
  // Altered: refused with a Korean page.
  const [id, exp, mac] = path.slice('/manage/'.length).split('.');
  const tampered = await t.app.inject({ url: `/manage/${id}.${Number(exp) + 86_400}.${mac}` });
  assert.equal(tampered.statusCode, 410);
  assert.match(tampered.body, /구독 관리 링크를 열 수 없습니다/);
  // Expired: 30 days on (the started mail asks for no later answer), the same link opens nothing.
  const now = t.clock.now();
  t.clock.set(new Date(now.getTime() + 31 * 86_400_000));
  try {
    const late = await t.app.inject({ url: path });
    assert.equal(late.statusCode, 410);
    assert.match(late.body, /유효 기간이 지났습니다/);
    assert.match(late.body, new RegExp(`href="${base}"`), 'the way back in: the buyer page');
  } finally {
    t.clock.set(now);
  }
});

test('a wrong, a reused and an expired sign-in link are refused (410) and sign nobody in', async () => {
  const jar = new Jar();
  const wrong = await useLink(t, jar, `http://x${base}/sign-in/${'A'.repeat(43)}`);
  assert.equal(wrong.statusCode, 410);
  assert.match(wrong.body, /로그인 링크를 쓸 수 없습니다/);

  await askLink(t, jar, base, BUYER);
  const link = linkIn((await signInMail(t, BUYER)).text_body)!;
  assert.equal((await useLink(t, new Jar(), link)).statusCode, 303);
  const again = await useLink(t, jar, link);
  assert.equal(again.statusCode, 410, 'single use');
  assert.ok(!jar.cookies.has('buyer_session'));

  await askLink(t, jar, base, BUYER);
  const late = linkIn((await signInMail(t, BUYER)).text_body)!;
  t.clock.advance(15 * 60_000 + 1_000);
  const expired = await useLink(t, jar, late);
  assert.equal(expired.statusCode, 410, 'past 15 minutes');
  assert.ok(!jar.cookies.has('buyer_session'));
});

test('an address that bought nothing gets the same page as a buyer\'s; its mail says so and carries no link', async () => {
  const a = await askLink(t, new Jar(), base, 'nobody@example.com');
  const b = await askLink(t, new Jar(), base, 'Buyer.One@Example.com');
  assert.equal(a.statusCode, b.statusCode);
  assert.equal(a.body.replace('nobody@example.com', 'X'), b.body.replace('Buyer.One@Example.com', 'X'));
  const mail = await signInMail(t, 'nobody@example.com');
  assert.equal(linkIn(mail.text_body), null);
  assert.match(mail.text_body ?? '', /결제한 주문이 없습니다/);
  // Invalid input is told, not mailed.
  const bad = await askLink(t, new Jar(), base, 'not-an-address');
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /이메일 주소를 확인해 주세요/);
});

test('sign-in links are rate limited: the 6th request for one address within the hour is refused (429)', async () => {
  const jar = new Jar();
  for (let i = 1; i <= 5; i++) assert.equal((await askLink(t, jar, base, 'flood@example.com')).statusCode, 200, `request ${i}`);
  const sixth = await askLink(t, jar, base, 'flood@example.com');
  assert.equal(sixth.statusCode, 429);
  assert.ok(Number(sixth.headers['retry-after']) > 0);
  assert.match(sixth.body, /너무 여러 번 요청했습니다/);
  const links = await t.db.selectFrom('buyer_sign_in_links').select('id').where('email', '=', 'flood@example.com').execute();
  assert.equal(links.length, 5, 'the refused request wrote no link and no mail');
});

test('a session is scoped to its store and mode: another store\'s orders are not shown, and its cookie opens nothing elsewhere', async () => {
  const s2 = await createTestStore(t);
  const p2 = await createSubscriptionProduct(t, s2, { name: '다른 상점 상품' });
  const here = await subscribe(t, s, { productId, buyerEmail: 'third@example.com' });
  const sub2 = await subscribe(t, s2, { productId: p2.id, buyerEmail: 'third@example.com' });
  const jar = await signedIn('third@example.com');
  const mine = await get(t, jar, base);
  assert.match(mine.body, new RegExp(`data-order-id="${here.orderId}"`));
  assert.doesNotMatch(mine.body, new RegExp(sub2.orderId));
  // The same cookie sent to the other store's page, or to this store's live page, is no session there.
  const cookie = { cookie: `buyer_session=${jar.cookies.get('buyer_session')}` };
  const other = await t.app.inject({ url: `/s/${s2.storeId}/test/orders`, headers: cookie });
  assert.match(other.body, /로그인 링크 받기/);
  assert.doesNotMatch(other.body, new RegExp(sub2.orderId));
  const live = await t.app.inject({ url: `/s/${s.storeId}/orders`, headers: cookie });
  assert.equal(live.statusCode, 200);
  assert.match(live.body, /로그인 링크 받기/);
  assert.doesNotMatch(live.body, /테스트 모드/);
  // An unknown store: 404.
  assert.equal((await t.app.inject({ url: '/s/st_nope/orders' })).statusCode, 404);
});

test('a device is freed from the buyer page through the licence service; logout ends the session', async () => {
  // Another buyer: the first one has used up the hour's sign-in links of its address in the tests above.
  const second = await subscribe(t, s, { productId, buyerEmail: 'second@example.com' });
  await t.deps.worker.runOnce();
  const lic = await t.db.selectFrom('licenses').select(['key_hash', 'product_id', 'id']).where('order_id', '=', second.orderId).executeTakeFirstOrThrow();
  const act = await activate(t.deps, { keyHash: lic.key_hash!, productId: lic.product_id }, '회사 노트북');
  const jar = await signedIn('second@example.com');
  const page = await get(t, jar, base);
  assert.match(page.body, /회사 노트북/);
  const off = await postForm(t, jar, `${base}/licenses/${lic.id}/deactivate`, { csrf: csrfOf(page.body), activationId: act.activation!.id });
  assert.equal(off.statusCode, 303);
  const row = await t.db.selectFrom('license_activations').select('deactivated_at').where('id', '=', act.activation!.id).executeTakeFirstOrThrow();
  assert.ok(row.deactivated_at, 'the slot is free');
  const after = await get(t, jar, String(off.headers.location));
  assert.match(after.body, /기기를 해제했습니다/);
  assert.doesNotMatch(after.body, /회사 노트북/);

  const kept = jar.cookies.get('buyer_session')!;
  const out = await postForm(t, jar, `${base}/sign-out`, { csrf: csrfOf(after.body) });
  assert.equal(out.statusCode, 303);
  assert.ok(!jar.cookies.has('buyer_session'), 'the cookie is cleared');
  const replay = await t.app.inject({ url: base, headers: { cookie: `buyer_session=${kept}` } });
  assert.match(replay.body, /로그인 링크 받기/, 'the old cookie opens nothing: the session ended');
});

test('the session expires after 12 hours; a day later its row and the used links are deleted', async () => {
  const jar = await signedIn('second@example.com');
  assert.match((await get(t, jar, base)).body, /로그인됨/);
  t.clock.advance(12 * 3_600_000 + 1_000);
  assert.match((await get(t, jar, base)).body, /로그인 링크 받기/);
  assert.ok((await t.db.selectFrom('buyer_sessions').select('id').execute()).length > 0);
  await purgeSignIns(t.deps, new Date(t.clock.now().getTime() + 86_400_000));
  assert.equal((await t.db.selectFrom('buyer_sessions').select('id').execute()).length, 0);
  assert.equal((await t.db.selectFrom('buyer_sign_in_links').select('id').execute()).length, 0);
});
