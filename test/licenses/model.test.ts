import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  KEY_ALPHABET,
  clientBucket,
  expiryAtIssue,
  formatLicenseKey,
  isValidNonce,
  licenseStatus,
  normalizeKey,
  normalizeMaxActivations,
  parseSellerAnswer,
} from '../../src/licenses/model';
import { generateLicenseKey, hashLicenseKey } from '../../src/licenses/keys';

test('nonce rules: hex (even count, at least 32 digits) or base64/base64url (at least 22 characters before up to two =); edge table in nonce.test.ts', () => {
  const valid: Array<[string, string]> = [
    ['32 hex digits (16 bytes)', 'a'.repeat(32)],
    ['64 hex digits, the recommended 32 bytes', randomBytes(32).toString('hex')],
    ['upper-case hex', randomBytes(16).toString('hex').toUpperCase()],
    ['base64 of 16 bytes, padded', randomBytes(16).toString('base64')],
    ['base64url of 16 bytes, unpadded (22 chars)', 'AbCdEfGhIjKlMnOpQrStUv'],
    ['base64 of 32 bytes', 'q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80='],
    ['base64url with - and _', 'ab-cd_efgh-ijkl_mnop-q'],
    ['base64 with + and /', 'ab+cd/efgh+ijkl/mnop+q'],
    ['base64 with one = (23 data chars + pad = 24)', 'AbCdEfGhIjKlMnOpQrStUvW='],
    ['base64 of 17 bytes with == (24 chars)', randomBytes(17).toString('base64')],
    // not valid hex, valid base64 by the contract's words (22 or more characters, optional padding up to 2)
    ['30 hex digits (15 bytes as hex)', 'a'.repeat(30)],
    ['22 hex digits', '0123456789abcdef012345'],
    ['padded, not a multiple of 4', 'AbCdEfGhIjKlMnOpQrStUvWxY='],
    ['a length of 4n+1', 'AbCdEfGhIjKlMnOpQrStUvWxY'],
  ];
  const invalid: Array<[string, string]> = [
    ['empty', ''],
    ['21 characters', 'AbCdEfGhIjKlMnOpQrStU'],
    ['three = of padding', 'AbCdEfGhIjKlMnOpQrSt===='],
    ['20 characters + == (15 bytes)', 'AbCdEfGhIjKlMnOpQrSt=='],
    ['padding in the middle', 'AbCdEfGhIjKl=MnOpQrStUv'],
    ['base64 and base64url alphabets mixed', 'ab+cd_efgh-ijkl/mnop+q'],
    ['space inside', 'AbCdEfGhIjK lMnOpQrStUvW'],
    ['other characters', 'AbCdEfGhIjKl.MnOpQrStUvW'],
    ['non-ASCII', 'AbCdEfGhIjKlMnOpQrStUvé'],
    ['longer than 512', 'a'.repeat(514)],
  ];
  for (const [name, v] of valid) assert.equal(isValidNonce(v), true, `valid: ${name} (${v})`);
  for (const [name, v] of invalid) assert.equal(isValidNonce(v), false, `invalid: ${name} (${v})`);
});

test('a service key is 5 groups of 5 Crockford base32 characters carrying 125 random bits', () => {
  const key = generateLicenseKey();
  assert.match(key, /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
  assert.equal(KEY_ALPHABET.length, 32); // 5 bits per character × 25 characters = 125 bits
  assert.equal(formatLicenseKey(new Uint8Array(25)), '00000-00000-00000-00000-00000');
  assert.equal(formatLicenseKey(new Uint8Array(25).fill(255)), 'ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ');
  const many = new Set(Array.from({ length: 2000 }, generateLicenseKey));
  assert.equal(many.size, 2000);
  // every character of the alphabet turns up: the 5 bits are used whole
  const chars = new Set([...many].join('').replace(/-/g, ''));
  assert.equal(chars.size, 32);
});

test('keys are matched ignoring case and spaces, and the hash depends on the master key', () => {
  const mk = randomBytes(32);
  assert.equal(normalizeKey(' abcde-fghjk \t'), 'ABCDE-FGHJK');
  assert.equal(hashLicenseKey(mk, 'abcde-fghjk'), hashLicenseKey(mk, 'ABCDE - FGHJK'));
  assert.notEqual(hashLicenseKey(mk, 'ABCDE-FGHJK'), hashLicenseKey(randomBytes(32), 'ABCDE-FGHJK'));
  assert.match(hashLicenseKey(mk, 'x'), /^[0-9a-f]{64}$/);
});

test('status is evaluated at the given moment: expired exactly when expiresAt <= now', () => {
  const now = new Date('2026-11-01T00:00:00.000Z');
  const at = (ms: number) => new Date(now.getTime() + ms);
  assert.equal(licenseStatus({ status: 'active', expires_at: null }, now), 'active');
  assert.equal(licenseStatus({ status: 'active', expires_at: at(1) }, now), 'active');
  assert.equal(licenseStatus({ status: 'active', expires_at: at(0) }, now), 'expired');
  assert.equal(licenseStatus({ status: 'active', expires_at: at(-1) }, now), 'expired');
  assert.equal(licenseStatus({ status: 'revoked', expires_at: at(-1) }, now), 'revoked');
  assert.equal(licenseStatus({ status: 'pending', expires_at: at(-1) }, now), 'pending');
});

test('seller answers: key 1-256 characters required; expiresAt and maxActivations fall back to the requested values; 0 is unlimited', () => {
  const requested = { expiresAt: new Date('2027-01-01T00:00:00.000Z'), maxActivations: 3 };
  const ok = (body: unknown) => parseSellerAnswer(typeof body === 'string' ? body : JSON.stringify(body), requested);

  assert.deepEqual(ok({ key: 'SELLER-KEY-1' }), { ok: true, key: 'SELLER-KEY-1', expiresAt: requested.expiresAt, maxActivations: 3 });
  assert.deepEqual(ok({ key: 'K', expiresAt: null, maxActivations: null }), { ok: true, key: 'K', expiresAt: requested.expiresAt, maxActivations: 3 });
  assert.deepEqual(ok({ key: 'K', maxActivations: 0 }), { ok: true, key: 'K', expiresAt: requested.expiresAt, maxActivations: null });
  assert.deepEqual(ok({ key: 'K', maxActivations: 5, expiresAt: '2027-06-01T09:00:00+09:00' }), {
    ok: true,
    key: 'K',
    expiresAt: new Date('2027-06-01T00:00:00.000Z'),
    maxActivations: 5,
  });
  // the seller may echo the request data with key added; other fields are ignored
  assert.equal(ok({ mode: 'test', licenseId: 'lic_1', buyer: { email: 'a@b.c', name: 'x' }, key: 'K', extra: [1, 2] }).ok, true);
  assert.equal(ok({ key: 'k'.repeat(256) }).ok, true);
  assert.equal(ok({ key: '가'.repeat(256) }).ok, true, '256 characters, not bytes');

  const bad: unknown[] = [
    'not json',
    '[]',
    'null',
    '"KEY"',
    {},
    { key: '' },
    { key: '   ' },
    { key: 'k'.repeat(257) },
    { key: 123 },
    { key: 'K\nL' },
    { key: 'K', expiresAt: 'tomorrow' },
    { key: 'K', expiresAt: '2027-01-01' },
    { key: 'K', expiresAt: 1767225600000 },
    { key: 'K', maxActivations: -1 },
    { key: 'K', maxActivations: 1.5 },
    { key: 'K', maxActivations: '3' },
  ];
  for (const b of bad) assert.equal(ok(b).ok, false, `malformed: ${JSON.stringify(b)}`);
});

test('product activation limit 0 means unlimited, like the seller answer', () => {
  assert.equal(normalizeMaxActivations(0), null);
  assert.equal(normalizeMaxActivations(null), null);
  assert.equal(normalizeMaxActivations(2), 2);
});

test('expiry at issue: one-time products add validity days to the payment time; subscriptions follow the paid period', () => {
  const paidAt = new Date('2026-11-01T00:00:00.000Z');
  const periodEnd = new Date('2026-12-01T00:00:00.000Z');
  assert.equal(expiryAtIssue({ subscription: false, paidAt, periodEnd: null, validityDays: null }), null);
  assert.equal(expiryAtIssue({ subscription: false, paidAt, periodEnd: null, validityDays: 30 })?.toISOString(), '2026-12-01T00:00:00.000Z');
  assert.equal(expiryAtIssue({ subscription: true, paidAt, periodEnd, validityDays: 365 })?.toISOString(), periodEnd.toISOString());
});

test('client addresses: IPv4 counted alone, IPv6 per /64, IPv4-mapped IPv6 as IPv4', () => {
  assert.equal(clientBucket('203.0.113.7'), '203.0.113.7');
  assert.equal(clientBucket('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientBucket('2001:db8:1:2:aaaa::1'), clientBucket('2001:db8:1:2:bbbb::2'));
  assert.notEqual(clientBucket('2001:db8:1:2::1'), clientBucket('2001:db8:1:3::1'));
});
