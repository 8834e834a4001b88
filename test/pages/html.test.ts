import { test } from 'node:test';
import assert from 'node:assert/strict';
import { html, raw, scriptJson } from '../../src/pages/html';
import { normalizePhone, readForm, validateBuyer } from '../../src/pages/form';

test('html escapes every interpolated value unless it is already safe markup', () => {
  const evil = `"><script>alert('x')</script>&`;
  const esc = '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;';
  assert.equal(html`<p title="${evil}">${evil}</p>`.value, `<p title="${esc}">${esc}</p>`);
  assert.equal(html`<b>${html`<i>${'<'}</i>`}</b>`.value, '<b><i>&lt;</i></b>');
  assert.equal(html`${['<a>', raw('<br>')]}${null}${undefined}${false}${0}`.value, '&lt;a&gt;<br>0');
  assert.equal(scriptJson({ s: '</script><script>' }).value, '{"s":"\\u003c/script>\\u003cscript>"}');
});

test('buyer fields: required, email shape, Korean phone numbers normalized to digits', () => {
  assert.equal(normalizePhone('010-1234-5678'), '01012345678');
  assert.equal(normalizePhone('+82 10 1234 5678'), '01012345678');
  assert.equal(normalizePhone('02-123-4567'), '021234567');
  assert.equal(normalizePhone('12345'), null);
  const v = readForm({ buyerName: ' 김 ', buyerEmail: 'a@b.co', buyerPhone: '010 1234 5678', method: 'toss', cardNumber: '', couponCode: '', extra: ['x'] });
  const ok = validateBuyer(v, { needCardNumber: true });
  assert.deepEqual(ok.attempt, { buyerName: '김', buyerEmail: 'a@b.co', buyerPhone: '01012345678', method: 'toss', couponCode: null });
  const bad = validateBuyer(readForm({ method: 'cash' }), { needCardNumber: true });
  assert.deepEqual(Object.keys(bad.errors!).sort(), ['buyerEmail', 'buyerName', 'buyerPhone', 'method']);
  const card = validateBuyer(readForm({ buyerName: 'a', buyerEmail: 'a@b.co', buyerPhone: '01000000000', method: 'card' }), { needCardNumber: true });
  assert.deepEqual(Object.keys(card.errors!), ['cardNumber']);
  assert.equal(validateBuyer(readForm({ buyerName: 'a', buyerEmail: 'a@b.co', buyerPhone: '01000000000', method: 'card' }), { needCardNumber: false }).errors, null);
});
