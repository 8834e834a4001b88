import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayPhone, html, kst, kstTime, raw, scriptJson } from '../../src/pages/html';
import { normalizePhone, readForm, validateBuyer, valuesFromAttempt } from '../../src/pages/form';

test('html escapes every interpolated value unless it is already safe markup', () => {
  const evil = `"><script>alert('x')</script>&`;
  const esc = '&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;';
  assert.equal(html`<p title="${evil}">${evil}</p>`.value, `<p title="${esc}">${esc}</p>`);
  assert.equal(html`<b>${html`<i>${'<'}</i>`}</b>`.value, '<b><i>&lt;</i></b>');
  assert.equal(html`${['<a>', raw('<br>')]}${null}${undefined}${false}${0}`.value, '&lt;a&gt;<br>0');
  assert.equal(scriptJson({ s: '</script><script>' }).value, '{"s":"\\u003c/script>\\u003cscript>"}');
});

const NOW = new Date('2026-11-01T00:00:00.000Z');
const AGREED = { agreeTerms: 'on', agreePrivacy: 'on', agreeThirdParty: 'on' };

test('buyer fields: required, email shape, Korean phone numbers normalized to digits and kept as typed for the form', () => {
  assert.equal(normalizePhone('010-1234-5678'), '01012345678');
  assert.equal(normalizePhone('+82 10 1234 5678'), '01012345678');
  assert.equal(normalizePhone('02-123-4567'), '021234567');
  assert.equal(normalizePhone('12345'), null);
  const v = readForm({ buyerName: ' 김 ', buyerEmail: 'a@b.co', buyerPhone: '010 1234 5678', method: 'toss', cardNumber: '', couponCode: '', extra: ['x'], ...AGREED });
  const ok = validateBuyer(v, { needCardNumber: true, now: NOW });
  assert.deepEqual(ok.attempt, { buyerName: '김', buyerEmail: 'a@b.co', buyerPhone: '01012345678', method: 'toss', couponCode: null, buyerPhoneTyped: '010 1234 5678', agreedAt: NOW.toISOString() });
  assert.equal(valuesFromAttempt(ok.attempt!).buyerPhone, '010 1234 5678', 'shown back as typed');
  const bad = validateBuyer(readForm({ method: 'cash' }), { needCardNumber: true, now: NOW });
  assert.deepEqual(Object.keys(bad.errors!).sort(), ['agreements', 'buyerEmail', 'buyerName', 'buyerPhone', 'method']);
  const card = validateBuyer(readForm({ buyerName: 'a', buyerEmail: 'a@b.co', buyerPhone: '01000000000', method: 'card', ...AGREED }), { needCardNumber: true, now: NOW });
  assert.deepEqual(Object.keys(card.errors!), ['cardNumber']);
  assert.equal(validateBuyer(readForm({ buyerName: 'a', buyerEmail: 'a@b.co', buyerPhone: '01000000000', method: 'card', ...AGREED }), { needCardNumber: false, now: NOW }).errors, null);
});

test('agreements: each required one must be ticked; "전체 동의" alone counts as all of them (no JavaScript needed)', () => {
  const base = { buyerName: 'a', buyerEmail: 'a@b.co', buyerPhone: '01000000000', method: 'toss' };
  for (const missing of ['agreeTerms', 'agreePrivacy', 'agreeThirdParty']) {
    const fields: Record<string, string> = { ...base, ...AGREED };
    delete fields[missing];
    assert.ok(validateBuyer(readForm(fields), { needCardNumber: false, now: NOW }).errors?.agreements, missing);
  }
  assert.equal(validateBuyer(readForm({ ...base, agreeAll: 'on' }), { needCardNumber: false, now: NOW }).errors, null);
});

test('할부: 2–12 months for card payments of 50,000원 or more only; 일시불 (0) always', () => {
  const base = { buyerName: 'a', buyerEmail: 'a@b.co', buyerPhone: '01000000000', method: 'card', ...AGREED };
  const check = (f: Record<string, string>, amount: number, subscription = false) => validateBuyer(readForm({ ...base, ...f }), { needCardNumber: false, amount, subscription, now: NOW });
  assert.equal(check({ installment: '3' }, 50_000).attempt?.installmentMonths, 3);
  assert.equal(check({ installment: '12' }, 120_000).attempt?.installmentMonths, 12);
  assert.equal(check({ installment: '0' }, 10_000).attempt?.installmentMonths, undefined);
  assert.match(check({ installment: '3' }, 49_999).errors?.installment ?? '', /50,000원 이상 카드 결제/);
  assert.match(check({ installment: '3', method: 'kakao_pay' }, 90_000).errors?.installment ?? '', /카드 결제/);
  assert.ok(check({ installment: '3' }, 90_000, true).errors?.installment, 'not for subscriptions');
  assert.ok(check({ installment: '1' }, 90_000).errors?.installment);
  assert.ok(check({ installment: '13' }, 90_000).errors?.installment);
});

test('Korean times read 오전/오후 in Korea time; phone numbers display hyphenated', () => {
  assert.equal(kstTime(new Date('2026-11-01T06:05:00Z')), '오후 3:05');
  assert.equal(kstTime(new Date('2026-11-01T15:30:00Z')), '오전 12:30');
  assert.equal(kstTime(new Date('2026-11-01T03:00:00Z')), '오후 12:00');
  assert.equal(kst(new Date('2026-10-31T23:59:00Z')), '2026년 11월 1일 오전 8:59');
  assert.equal(displayPhone('01012345678'), '010-1234-5678');
  assert.equal(displayPhone('021234567'), '02-123-4567');
});
