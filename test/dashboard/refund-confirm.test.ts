import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../helpers/app';
import { signIn, postForm } from './helpers';
import { insertPaidOrder, refundRows } from '../refunds/factory';
import { createProduct } from '../checkout/factory';

/**
 * The dashboard refund confirms before it sends: the order page never prefills the whole remainder, its form only
 * leads to a confirm page that states the amount and where the money goes, and that page's button refunds once however
 * often it is pressed.
 */
const hidden = (body: string, name: string) => new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(body)?.[1];
const text = (body: string) => body.replace(/<style[\s\S]*?<\/style>/g, '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('order page → confirm page (amount, target, what is left) → one refund for a double submit', async (tc) => {
  const t = await createTestApp();
  tc.after(() => t.close());
  const owner = await signIn(t, { name: '김사장' });
  const p = await createProduct(t, owner.store, { name: '전자책', price: 15_000 });
  const order = await insertPaidOrder(t, owner.storeId, p.id, { amount: 15_000 });
  const path = `/dashboard/orders/${order}`;

  const page = await t.app.inject({ url: path, headers: owner.headers });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, new RegExp(`<form method="post" action="${path}/refund/confirm" id="refund-form"`));
  assert.match(page.body, /<input type="text" inputmode="numeric" id="refund-amount" name="amount" value=""/, 'the amount is not prefilled');
  assert.match(page.body, /<button type="submit" name="whole" value="1"[^>]*>전액 \(15,000원\)<\/button>/);
  const idem = hidden(page.body, 'idem')!;
  assert.ok(idem);

  // Sending the order page's form moves no money: it shows the confirm page.
  const typed = await postForm(t, owner, `${path}/refund/confirm`, { amount: '5,000', reason: '일부 환불', idem });
  assert.equal(typed.statusCode, 200);
  const shown = text(typed.body);
  assert.match(shown, /환불 확인/);
  assert.match(shown, /환불 금액 5,000원/);
  assert.match(shown, /환불 대상 구매자가 결제한 카드/);
  assert.match(shown, /환불 후 남는 금액 10,000원/);
  assert.match(shown, /5,000원 환불하기/);
  assert.equal(hidden(typed.body, 'amount'), '5000');
  assert.equal(hidden(typed.body, 'idem'), idem, 'the confirm page sends the order page form\'s key');
  assert.match(typed.body, new RegExp(`action="${path}/refund"`));
  assert.deepEqual(await refundRows(t, order), [], 'no refund before the confirm');

  // The whole amount only by asking for it, and still confirmed.
  const whole = await postForm(t, owner, `${path}/refund/confirm`, { amount: '', whole: '1', idem });
  assert.match(text(whole.body), /환불 금액 15,000원 \(남은 금액 전부\)/);
  assert.match(text(whole.body), /라이선스 전액 환불이므로 회수/);
  assert.equal(hidden(whole.body, 'amount'), '15000');

  // No amount, or too much: said on the order page, nothing refunded.
  const empty = await postForm(t, owner, `${path}/refund/confirm`, { amount: '', idem });
  assert.equal(empty.statusCode, 400);
  assert.match(empty.body, /환불 금액을 입력하거나 「전액」을 눌러 주세요/);
  const over = await postForm(t, owner, `${path}/refund/confirm`, { amount: '15,001', idem });
  assert.match(over.body, /환불 금액은 1원부터 15,000원까지입니다/);
  assert.deepEqual(await refundRows(t, order), []);

  // The confirm button pressed twice (two posts of the same form): one refund of 5,000.
  const form = { amount: hidden(typed.body, 'amount')!, reason: hidden(typed.body, 'reason')!, idem };
  const [a, b] = await Promise.all([postForm(t, owner, `${path}/refund`, form), postForm(t, owner, `${path}/refund`, form)]);
  assert.equal(a.statusCode, 303);
  assert.equal(b.statusCode, 303);
  const again = await postForm(t, owner, `${path}/refund`, form);
  assert.match(String(again.headers.location), /done=(replayed|inflight)/);
  const rows = await refundRows(t, order);
  assert.equal(rows.length, 1);
  assert.equal(Number(rows[0].amount), 5_000);

  // The CSRF token is required on the confirm step too.
  const forged = await postForm(t, owner, `${path}/refund/confirm`, { amount: '1,000', idem }, { csrf: false });
  assert.equal(forged.statusCode, 403);
});
