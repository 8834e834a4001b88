import { test, describe, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { LicenseClient, LicenseVerificationError, LicenseApiError, keyFingerprint, type VerificationFailure } from '../src/index';
import { FakeLicenseServer, fingerprintOf, makeSigningKey, signatureHeader, type Reply } from './fake-server';

const KEY = 'ABCDE-FGHJK-MNPQR-STVWX-YZ012';
const MINUTE = 60_000;

let server: FakeLicenseServer;
before(async () => {
  server = await FakeLicenseServer.start();
});
after(() => server.close());
beforeEach(() => {
  server.listed = [makeSigningKey('k1')];
  server.signer = server.listed[0];
  server.respond = null;
  server.now = () => new Date();
  server.requests = [];
  server.keyFetches = 0;
});

const client = (opts: Partial<ConstructorParameters<typeof LicenseClient>[0]> = {}) => new LicenseClient({ baseUrl: server.url, productId: 'prod_1', ...opts });

async function refused(p: Promise<unknown>, reason: VerificationFailure): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof LicenseVerificationError, `expected LicenseVerificationError, got ${String(err)}`);
    assert.equal(err.reason, reason);
    return true;
  });
}

describe('accepted answers', () => {
  test('activate sends key, productId, a 32-byte hex nonce and the label, and returns every contract field', async () => {
    const r = await client().activate(KEY, { label: '사무실 노트북' });
    const sent = server.requests[0];
    assert.equal(sent.path, '/v1/licenses/activate');
    assert.deepEqual(Object.keys(sent.body).sort(), ['key', 'label', 'nonce', 'productId']);
    assert.equal(sent.body.key, KEY);
    assert.equal(sent.body.productId, 'prod_1');
    assert.match(sent.body.nonce, /^[0-9a-f]{64}$/);
    assert.deepEqual(Object.keys(r).sort(), [
      'activation',
      'activationCount',
      'expiresAt',
      'fromCache',
      'issuedAt',
      'keyFingerprint',
      'kid',
      'maxActivations',
      'mode',
      'nonce',
      'productId',
      'status',
    ]);
    assert.equal(r.productId, 'prod_1');
    assert.equal(r.keyFingerprint, fingerprintOf(KEY));
    assert.equal(r.status, 'active');
    assert.equal(r.nonce, sent.body.nonce);
    assert.equal(r.activation?.label, '사무실 노트북', 'multi-byte UTF-8 body verified over its raw bytes');
    assert.equal(r.fromCache, false);
    assert.equal(r.kid, 'k1');
  });

  test('verify and deactivate send the activationId; activate without a label sends no label field', async () => {
    const c = client();
    await c.activate(KEY);
    await c.verify(KEY, { activationId: 'act_7' });
    await c.verify(KEY);
    const d = await c.deactivate(KEY, 'act_7');
    assert.deepEqual(Object.keys(server.requests[0].body).sort(), ['key', 'nonce', 'productId']);
    assert.deepEqual([server.requests[1].path, server.requests[1].body.activationId], ['/v1/licenses/verify', 'act_7']);
    assert.equal('activationId' in server.requests[2].body, false);
    assert.deepEqual([server.requests[3].path, server.requests[3].body.activationId], ['/v1/licenses/deactivate', 'act_7']);
    assert.notEqual(d.activation?.deactivatedAt, null);
    const nonces = new Set(server.requests.map((r) => r.body.nonce));
    assert.equal(nonces.size, 4, 'every request gets a fresh nonce');
  });

  test('the signature covers the bytes as sent, not a re-serialization (spacing and key order are the server\'s)', async () => {
    server.respond = (req, s) => s.signed(JSON.stringify(s.answerFor(req), null, 2).replace('"status"', '"status" '));
    const r = await client().verify(KEY);
    assert.equal(r.status, 'active');
  });

  test('every status the contract lists comes through, not_found with activation null', async () => {
    for (const status of ['expired', 'revoked', 'pending', 'not_found'] as const) {
      server.respond = (req, s) => s.signed(s.answerFor(req, { status, activation: null, activationCount: 0, maxActivations: null }));
      const r = await client().verify(KEY);
      assert.equal(r.status, status);
      assert.equal(r.activation, null);
    }
  });
});

describe('refused answers', () => {
  test('one changed byte in the signed body → bad_signature', async () => {
    server.respond = (req, s) => {
      const reply = s.signed(s.answerFor(req, { status: 'revoked' }));
      return { ...reply, body: reply.body.replace('"revoked"', '"active"') };
    };
    await refused(client().verify(KEY), 'bad_signature');
    server.respond = (req, s) => {
      const reply = s.signed(s.answerFor(req));
      const bytes = Buffer.from(reply.body);
      bytes[bytes.length - 3] ^= 0x01;
      return { ...reply, body: bytes.toString('latin1') };
    };
    await refused(client().verify(KEY), 'bad_signature');
  });

  test('a signature by another key under a listed kid → bad_signature', async () => {
    const forger = makeSigningKey('k1');
    server.respond = (req, s) => s.signed(s.answerFor(req), forger);
    await refused(client().verify(KEY), 'bad_signature');
  });

  test('an older answer replayed for a new request (other nonce) → nonce_mismatch', async () => {
    let captured: Reply | null = null;
    server.respond = (req, s) => (captured ??= s.signed(s.answerFor(req)));
    const c = client();
    await c.verify(KEY);
    await refused(c.verify(KEY), 'nonce_mismatch');
  });

  test('issuedAt 6 minutes before or after the device clock → stale; 4 minutes → accepted', async () => {
    const at = (offsetMs: number) => () => new Date(Date.now() + offsetMs);
    await refused(client({ now: at(6 * MINUTE) }).verify(KEY), 'stale');
    await refused(client({ now: at(-6 * MINUTE) }).verify(KEY), 'stale');
    assert.equal((await client({ now: at(4 * MINUTE) }).verify(KEY)).status, 'active');
    assert.equal((await client({ now: at(-4 * MINUTE) }).verify(KEY)).status, 'active');
  });

  test('no Service-Signature header → missing_signature', async () => {
    server.respond = (req, s) => ({ ...s.signed(s.answerFor(req)), headers: {} });
    await refused(client().verify(KEY), 'missing_signature');
  });

  test('an unparsable header or another algorithm → malformed_signature', async () => {
    for (const header of ['garbage', 'kid="k1", alg="rsa", sig="AAAA"', 'kid="k1", alg="ed25519"', 'kid="k1", alg="ed25519", sig="c2hvcnQ="']) {
      server.respond = (req, s) => ({ ...s.signed(s.answerFor(req)), headers: { 'service-signature': header } });
      await refused(client().verify(KEY), 'malformed_signature');
    }
  });

  test('unknown kid → the keys list is refetched once, then unknown_kid', async () => {
    const c = client();
    await c.verify(KEY);
    assert.equal(server.keyFetches, 1);
    server.signer = makeSigningKey('k-unlisted');
    await refused(c.verify(KEY), 'unknown_kid');
    assert.equal(server.keyFetches, 2);
  });

  test('a signed body without the contract fields → malformed_body', async () => {
    server.respond = (req, s) => s.signed({ status: 'active', nonce: req.body.nonce, issuedAt: new Date().toISOString() });
    await refused(client().verify(KEY), 'malformed_body');
    server.respond = (req, s) => s.signed(s.answerFor(req, { status: 'lifetime' }));
    await refused(client().verify(KEY), 'malformed_body');
  });

  test('an answer naming another product, or none → product_mismatch', async () => {
    server.respond = (req, s) => s.signed(s.answerFor(req, { productId: 'prod_cheap' }));
    await refused(client().activate(KEY), 'product_mismatch');
    server.respond = (req, s) => s.signed({ ...s.answerFor(req), productId: undefined });
    await refused(client().verify(KEY), 'product_mismatch');
    // exactly as sent: no trimming or case folding of the productId
    server.respond = (req, s) => s.signed(s.answerFor(req, { productId: 'PROD_1' }));
    await refused(client().verify(KEY), 'product_mismatch');
  });

  test('an answer about another license key (its keyFingerprint), or with none → key_mismatch', async () => {
    server.respond = (req, s) => s.signed(s.answerFor(req, { keyFingerprint: fingerprintOf('ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ-ZZZZZ') }));
    await refused(client().activate(KEY), 'key_mismatch');
    await refused(client().deactivate(KEY, 'act_01'), 'key_mismatch');
    server.respond = (req, s) => s.signed({ ...s.answerFor(req), keyFingerprint: undefined });
    await refused(client().verify(KEY), 'key_mismatch');
    // the fingerprint of the plain key, not the domain-separated one
    const { createHash } = await import('node:crypto');
    server.respond = (req, s) => s.signed(s.answerFor(req, { keyFingerprint: createHash('sha256').update(KEY).digest('base64url') }));
    await refused(client().verify(KEY), 'key_mismatch');
  });

  test('keyFingerprint: the documented test vector, and the key is normalized (case, spaces, NFC) as the service matches it', async () => {
    const v = 'S67m22Y21iqjHuFs7_8P0ASESOvrTjV51_l09xkbxHI';
    assert.equal(await keyFingerprint('ABCDE-FGHJK-MNPQR-STVWX-YZ012'), v);
    assert.equal(await keyFingerprint(' abcde-fghjk -mnpqr-stvwx-yz012\n'), v);
    assert.equal(await keyFingerprint('café-key'), await keyFingerprint('cafe\u0301-KEY'));
    assert.notEqual(await keyFingerprint('ABCDE-FGHJK-MNPQR-STVWX-YZ013'), v);
    // a key typed in lower case with spaces is accepted against the service's fingerprint of the same key
    const r = await client().verify(' abcde-fghjk-mnpqr-stvwx-yz012 ');
    assert.equal(r.keyFingerprint, v);
  });

  test('an answer about another activation than the one asked for → activation_mismatch', async () => {
    server.respond = (req, s) => s.signed(s.answerFor({ ...req, body: { ...req.body, activationId: 'act_other' } }));
    await refused(client().verify(KEY, { activationId: 'act_mine' }), 'activation_mismatch');
  });
});

describe('signing keys', () => {
  test('rotation: with two keys listed, answers signed by either verify', async () => {
    const [oldKey, newKey] = [makeSigningKey('2026-10'), makeSigningKey('2026-11')];
    server.listed = [oldKey, newKey];
    const c = client();
    server.signer = oldKey;
    assert.equal((await c.verify(KEY)).kid, '2026-10');
    server.signer = newKey;
    assert.equal((await c.verify(KEY)).kid, '2026-11');
    server.signer = oldKey;
    assert.equal((await c.verify(KEY)).kid, '2026-10');
    assert.equal(server.keyFetches, 1, 'both kids came from one fetch');
  });

  test('a key published after the list was cached is found by the refetch on its unknown kid', async () => {
    const c = client();
    await c.verify(KEY);
    const next = makeSigningKey('k2');
    server.listed = [...server.listed, next];
    server.signer = next;
    assert.equal((await c.verify(KEY)).kid, 'k2');
    assert.equal(server.keyFetches, 2);
  });

  test('a withdrawn key stops being trusted once the held list is older than keysMaxAgeMs', async () => {
    let now = Date.now();
    server.now = () => new Date(now);
    const c = client({ now: () => new Date(now), keysMaxAgeMs: 60 * MINUTE });
    const withdrawn = server.listed[0];
    await c.verify(KEY);
    server.listed = [makeSigningKey('k2')];
    assert.equal((await c.verify(KEY)).kid, 'k1', 'still trusted within keysMaxAgeMs');
    now += 61 * MINUTE;
    server.signer = withdrawn;
    await refused(c.verify(KEY), 'unknown_kid');
  });

  test('pinned keys: the keys list is never fetched and a key only the server lists is not trusted', async () => {
    const pinned = server.listed[0];
    const c = client({ signingKeys: [{ kid: pinned.kid, publicKey: pinned.publicKey }] });
    assert.equal((await c.verify(KEY)).kid, 'k1');
    const impostor = makeSigningKey('evil');
    server.listed.push(impostor);
    server.signer = impostor;
    await refused(c.verify(KEY), 'unknown_kid');
    assert.equal(server.keyFetches, 0);
  });
});

describe('API errors', () => {
  async function apiError(reply: Reply, call: (c: LicenseClient) => Promise<unknown> = (c) => c.verify(KEY)): Promise<LicenseApiError> {
    server.respond = () => reply;
    try {
      await call(client({ offlineGraceMs: 60 * MINUTE }));
    } catch (err) {
      assert.ok(err instanceof LicenseApiError, String(err));
      return err;
    }
    assert.fail('expected LicenseApiError');
  }

  test('429 LICENSE_RATE_LIMITED and LICENSE_LOOKUP_BLOCKED carry retryAfter in seconds', async () => {
    const e1 = await apiError(server.error(429, 'LICENSE_RATE_LIMITED', '요청이 너무 많습니다.', { 'retry-after': '30' }));
    assert.deepEqual([e1.status, e1.code, e1.message, e1.retryAfter], [429, 'LICENSE_RATE_LIMITED', '요청이 너무 많습니다.', 30]);
    const until = new Date(Date.now() + 120_000).toUTCString();
    const e2 = await apiError(server.error(429, 'LICENSE_LOOKUP_BLOCKED', '조회가 제한되었습니다.', { 'retry-after': until }));
    assert.equal(e2.code, 'LICENSE_LOOKUP_BLOCKED');
    assert.ok(e2.retryAfter! >= 118 && e2.retryAfter! <= 120, `HTTP-date Retry-After → seconds, got ${e2.retryAfter}`);
  });

  test('409 MAX_ACTIVATIONS_REACHED and 400 VALIDATION_FAILED keep code and details; retryAfter null without the header', async () => {
    const e1 = await apiError(server.error(409, 'MAX_ACTIVATIONS_REACHED', '활성화 한도에 도달했습니다.'), (c) => c.activate(KEY));
    assert.deepEqual([e1.status, e1.code, e1.retryAfter, e1.details], [409, 'MAX_ACTIVATIONS_REACHED', null, null]);
    const fields = [{ field: 'nonce', message: '형식이 올바르지 않습니다.' }];
    const e2 = await apiError(server.error(400, 'VALIDATION_FAILED', '요청이 올바르지 않습니다.', {}, { fields }));
    assert.deepEqual(e2.details, { fields });
  });

  test('a non-JSON error page keeps its HTTP status', async () => {
    const e = await apiError({ status: 403, body: '<html>blocked</html>', headers: { 'content-type': 'text/html' } });
    assert.deepEqual([e.status, e.code], [403, 'HTTP_403']);
  });

  test('an error answer never falls back to the offline cache, even with a good cached answer', async () => {
    const c = client({ offlineGraceMs: 60 * MINUTE });
    await c.verify(KEY);
    server.respond = (_req, s) => s.error(429, 'LICENSE_RATE_LIMITED', '요청이 너무 많습니다.', { 'retry-after': '5' });
    await assert.rejects(c.verify(KEY), (err: unknown) => err instanceof LicenseApiError && err.retryAfter === 5);
  });

  test('an unsigned 200 is not accepted as an answer', async () => {
    server.respond = (req, s) => ({ status: 200, body: JSON.stringify(s.answerFor(req)), headers: {} });
    await refused(client().activate(KEY), 'missing_signature');
  });
});

test('the client refuses empty key and activationId before calling the service', async () => {
  const c = client();
  await assert.rejects(c.verify(''), TypeError);
  await assert.rejects(c.deactivate(KEY, ''), TypeError);
  assert.equal(server.requests.length, 0);
});

test('signatureHeader in the fake matches the documented format', () => {
  assert.match(signatureHeader(makeSigningKey('x'), '{}'), /^kid="x", alg="ed25519", sig="[A-Za-z0-9+/]{86}=="$/);
});
