import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptOutcome, DISABLED_REASONS, generateSecret, liveSecrets, MAX_ATTEMPTS, rotateSecrets } from '../../src/webhooks/model';
import { refusedAddressReason } from '../../src/webhooks/ssrf';
import { DAY, HOUR } from '../../src/platform/clock';

const t0 = new Date('2026-11-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

test('secrets are whsec_ + base64 of 32 random bytes, different each time', () => {
  const a = generateSecret();
  assert.match(a, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
  assert.notEqual(a, generateSecret());
});

test('rotation puts the new secret first and keeps the old one signing for exactly 24 h', () => {
  const first = { secret: generateSecret(), createdAt: t0.toISOString(), expiresAt: null };
  const r = rotateSecrets([first], at(HOUR));
  assert.equal(r.secrets[0].secret, r.secret);
  assert.equal(r.secrets[0].expiresAt, null);
  assert.equal(r.secrets[1].secret, first.secret);
  assert.equal(r.secrets[1].expiresAt, at(25 * HOUR).toISOString());
  assert.deepEqual(liveSecrets(r.secrets, at(25 * HOUR - 1)).map((s) => s.secret), [r.secret, first.secret]);
  assert.deepEqual(liveSecrets(r.secrets, at(25 * HOUR)).map((s) => s.secret), [r.secret]);
});

test('rotating twice never extends a secret that is already on its way out', () => {
  const r1 = rotateSecrets([{ secret: 'whsec_a', createdAt: t0.toISOString(), expiresAt: null }], t0);
  const r2 = rotateSecrets(r1.secrets, at(10 * HOUR));
  const old = r2.secrets.find((s) => s.secret === 'whsec_a')!;
  assert.equal(old.expiresAt, at(24 * HOUR).toISOString());
  assert.equal(r2.secrets.length, 3);
});

test('retry schedule after failed attempt n: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed', () => {
  const delays = [5_000, 300_000, 1_800_000, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
  assert.equal(MAX_ATTEMPTS, 8);
  delays.forEach((d, i) => {
    const o = attemptOutcome({ ok: false, status: 500, attempt: i + 1, now: t0, failingSince: null });
    assert.equal(o.delivery.status, 'pending');
    assert.equal(o.delivery.nextAttemptAt!.getTime() - t0.getTime(), d, `after attempt ${i + 1}`);
  });
  const last = attemptOutcome({ ok: false, status: null, attempt: 8, now: t0, failingSince: null });
  assert.deepEqual(last.delivery, { status: 'failed', nextAttemptAt: null });
  assert.equal(last.endpoint.disableReason, null);
});

test('any 2xx succeeds and clears the failure run; 3xx is a failure (redirects are not followed)', () => {
  for (const status of [200, 201, 204, 299]) {
    const o = attemptOutcome({ ok: true, status, attempt: 3, now: t0, failingSince: at(-DAY) });
    assert.equal(o.delivery.status, 'succeeded');
    assert.equal(o.endpoint.failingSince, null);
  }
  assert.equal(attemptOutcome({ ok: false, status: 302, attempt: 1, now: t0, failingSince: null }).delivery.status, 'pending');
});

test('410 Gone fails the delivery and disables the endpoint at once', () => {
  const o = attemptOutcome({ ok: false, status: 410, attempt: 1, now: t0, failingSince: null });
  assert.equal(o.delivery.status, 'failed');
  assert.equal(o.endpoint.disableReason, DISABLED_REASONS.gone);
});

test('an endpoint failing without a break for 5 days is disabled; a first failure starts the clock', () => {
  const first = attemptOutcome({ ok: false, status: 500, attempt: 1, now: t0, failingSince: null });
  assert.equal(first.endpoint.failingSince!.getTime(), t0.getTime());
  const almost = attemptOutcome({ ok: false, status: 500, attempt: 1, now: at(5 * DAY - 1), failingSince: t0 });
  assert.equal(almost.endpoint.disableReason, null);
  const five = attemptOutcome({ ok: false, status: 500, attempt: 1, now: at(5 * DAY), failingSince: t0 });
  assert.equal(five.endpoint.disableReason, DISABLED_REASONS.failing);
  assert.equal(five.delivery.status, 'failed');
});

test('address table: only public unicast passes; loopback only with the development exception', () => {
  const refused = [
    '127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::a00:1', '2002:7f00:1::1', '::7f00:1', '192.0.2.1', '198.18.0.1',
  ];
  for (const ip of refused) assert.notEqual(refusedAddressReason(ip, false), null, ip);
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(refusedAddressReason(ip, false), null, ip);
  for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.equal(refusedAddressReason(ip, true), null, `${ip} with the dev setting`);
  for (const ip of ['10.0.0.1', '169.254.169.254', '192.168.1.1', 'fc00::1']) assert.notEqual(refusedAddressReason(ip, true), null, `${ip}: the dev setting is loopback only`);
});
