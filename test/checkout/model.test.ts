import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMetadata, hostAllowed, parseReturnUrl, periodEnd, sessionStatus, successRedirectUrl } from '../../src/checkout/model';
import { ApiError } from '../../src/platform/errors';

test('metadata: null/absent is none; a flat string map within limits passes; anything else is METADATA_INVALID', () => {
  assert.equal(checkMetadata(undefined), null);
  assert.equal(checkMetadata(null), null);
  assert.deepEqual(checkMetadata({ a: 'b' }), { a: 'b' });
  for (const bad of [[], 'x', 1, { a: 1 }, { a: {} }, { a: null }, { ['x'.repeat(41)]: '' }, { a: 'y'.repeat(501) }]) {
    assert.throws(() => checkMetadata(bad), (e: unknown) => e instanceof ApiError && e.code === 'METADATA_INVALID', JSON.stringify(bad));
  }
});

test('return URLs: absolute http(s) without credentials', () => {
  assert.ok(parseReturnUrl('https://shop.example.com/a?b=c'));
  assert.ok(parseReturnUrl('http://localhost:3000/'));
  for (const bad of ['/relative', 'ftp://x.y/', 'javascript:alert(1)', 'data:text/html,x', 'https://u:p@example.com/', 'https://', '']) assert.equal(parseReturnUrl(bad), null, bad);
});

test('allow-list: the domain itself or a subdomain; an entry with a port matches only that port', () => {
  const allow = ['example.com', 'localhost:3000'];
  const ok = (u: string) => hostAllowed(new URL(u), allow);
  assert.ok(ok('https://example.com/x'));
  assert.ok(ok('https://a.b.example.com/x'));
  assert.ok(ok('https://EXAMPLE.com./x'));
  assert.ok(!ok('https://badexample.com/x'));
  assert.ok(!ok('https://example.com.evil.test/x'));
  assert.ok(ok('http://localhost:3000/x'));
  assert.ok(!ok('http://localhost:4000/x'));
});

test('the success redirect keeps the existing query and fragment and sets order_id and session_id', () => {
  assert.equal(successRedirectUrl('https://s.example.com/ok?a=1&b=two#f', 'ord_1', 'cs_1'), 'https://s.example.com/ok?a=1&b=two&order_id=ord_1&session_id=cs_1#f');
  assert.equal(successRedirectUrl('https://s.example.com/ok?order_id=placeholder', 'ord_1', 'cs_1'), 'https://s.example.com/ok?order_id=ord_1&session_id=cs_1');
});

test('session status: open until expires_at, expired from then on, completed wins', () => {
  const expires_at = new Date('2026-11-01T00:30:00Z');
  assert.equal(sessionStatus({ status: 'open', expires_at }, new Date('2026-11-01T00:29:59.999Z')), 'open');
  assert.equal(sessionStatus({ status: 'open', expires_at }, expires_at), 'expired');
  assert.equal(sessionStatus({ status: 'completed', expires_at }, new Date('2027-01-01T00:00:00Z')), 'completed');
});

test('billing periods: one calendar month or year on the Korean calendar, clamped to the month end', () => {
  const kst = (s: string) => new Date(`${s}+09:00`);
  assert.equal(periodEnd(kst('2026-11-15T10:00:00'), 'monthly').getTime(), kst('2026-12-15T10:00:00').getTime());
  assert.equal(periodEnd(kst('2027-01-31T01:00:00'), 'monthly').getTime(), kst('2027-02-28T01:00:00').getTime());
  assert.equal(periodEnd(kst('2028-01-31T01:00:00'), 'monthly').getTime(), kst('2028-02-29T01:00:00').getTime());
  assert.equal(periodEnd(kst('2026-12-31T23:30:00'), 'monthly').getTime(), kst('2027-01-31T23:30:00').getTime());
  assert.equal(periodEnd(kst('2028-02-29T12:00:00'), 'yearly').getTime(), kst('2029-02-28T12:00:00').getTime());
  // 2026-11-30 20:00 UTC is already December 1st in Korea: the period ends January 1st KST
  assert.equal(periodEnd(new Date('2026-11-30T20:00:00Z'), 'monthly').toISOString(), '2026-12-31T20:00:00.000Z');
});
