import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, verify as nodeVerify } from 'node:crypto';
import * as ed from '@noble/ed25519';
import fc from 'fast-check';
import { parseSignatureHeader, verifyEd25519, makeNonce, LicenseVerificationError } from '../src/index';

function nodeKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
  return { privateKey, publicKey, raw };
}

const bytes = (b: Uint8Array | Buffer) => new Uint8Array(b); // a fresh ArrayBuffer-backed copy
const flip = (b: Uint8Array, i: number) => {
  const c = bytes(b);
  c[i % c.length] ^= 0x01;
  return c;
};

describe('Service-Signature header', () => {
  test('the documented form, any order, extra spacing, unquoted values and unknown parameters parse to kid and a 64-byte sig', () => {
    const sig = Buffer.alloc(64, 7).toString('base64');
    for (const h of [
      `kid="k1", alg="ed25519", sig="${sig}"`,
      `sig="${sig}",kid="k1",alg="ed25519"`,
      `  KID = "k1" ,  Alg="Ed25519", sig=${sig}, v="2"`,
    ]) {
      const p = parseSignatureHeader(h);
      assert.equal(p.kid, 'k1', h);
      assert.deepEqual(Buffer.from(p.signature), Buffer.alloc(64, 7));
    }
  });

  test('missing, repeated, truncated or non-Ed25519 headers are refused with a reason', () => {
    const sig = Buffer.alloc(64, 7).toString('base64');
    const cases: Array<[string | null, string]> = [
      [null, 'missing_signature'],
      ['', 'missing_signature'],
      [`kid="k1", alg="ed25519", sig="${sig}", sig="${sig}"`, 'malformed_signature'],
      [`kid="k1", sig="${sig}"`, 'malformed_signature'],
      [`kid="k1", alg="hs256", sig="${sig}"`, 'malformed_signature'],
      [`kid="k1", alg="ed25519", sig="${sig.slice(0, 40)}"`, 'malformed_signature'],
      [`kid="k1", alg="ed25519", sig="not base64!"`, 'malformed_signature'],
      [`kid="k1" alg="ed25519" sig="${sig}"`, 'malformed_signature'],
    ];
    for (const [h, reason] of cases) {
      assert.throws(() => parseSignatureHeader(h), (e: unknown) => e instanceof LicenseVerificationError && e.reason === reason, String(h));
    }
  });
});

describe('signature check agrees with @noble/ed25519', () => {
  const body = new TextEncoder().encode(
    JSON.stringify({ status: 'active', expiresAt: null, maxActivations: 3, activationCount: 1, mode: 'live', activation: { id: 'act_1', label: '집 데스크톱', activatedAt: '2026-11-01T00:00:00.000Z', lastVerifiedAt: null, deactivatedAt: null }, nonce: 'a'.repeat(64), issuedAt: '2026-11-01T00:00:00.000Z' }),
  );

  test('node:crypto-signed answer: valid, changed body byte, changed signature byte, other key', async () => {
    const k = nodeKeyPair();
    const other = nodeKeyPair();
    const sig = bytes(sign(null, body, k.privateKey));
    const cases: Array<[string, Uint8Array, Uint8Array, Uint8Array, boolean]> = [
      ['valid', k.raw, sig, body, true],
      ['changed body byte', k.raw, sig, flip(body, 10), false],
      ['changed last body byte', k.raw, sig, flip(body, body.length - 1), false],
      ['changed signature byte', k.raw, flip(sig, 3), body, false],
      ['changed signature S half', k.raw, flip(sig, 40), body, false],
      ['other public key', other.raw, sig, body, false],
    ];
    for (const [name, pub, s, m, expected] of cases) {
      const ours = await verifyEd25519(bytes(pub), bytes(s), bytes(m));
      const noble = await ed.verifyAsync(s, m, pub, { zip215: false });
      assert.equal(ours, expected, `ours: ${name}`);
      assert.equal(noble, expected, `noble: ${name}`);
    }
  });

  test('a noble-signed message verifies here too (the check is not tied to one signer)', async () => {
    const priv = ed.utils.randomPrivateKey();
    const pub = await ed.getPublicKeyAsync(priv);
    const sig = await ed.signAsync(body, priv);
    assert.equal(await verifyEd25519(bytes(pub), bytes(sig), bytes(body)), true);
    assert.equal(await verifyEd25519(bytes(pub), bytes(sig), flip(body, 0)), false);
  });

  test('property: for random messages and random single-bit changes, both libraries give the same verdict', async () => {
    const k = nodeKeyPair();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 512 }), fc.nat(), fc.constantFrom('none', 'message', 'signature'), async (msg, pos, tamper) => {
        const sig = bytes(sign(null, msg, k.privateKey));
        const m = tamper === 'message' && msg.length > 0 ? flip(msg, pos) : bytes(msg);
        const s = tamper === 'signature' ? flip(sig, pos) : sig;
        const ours = await verifyEd25519(bytes(k.raw), s, m);
        const noble = await ed.verifyAsync(s, m, k.raw, { zip215: false });
        const node = nodeVerify(null, m, k.publicKey, s);
        assert.equal(ours, noble);
        assert.equal(ours, node);
        assert.equal(ours, tamper === 'none' || (tamper === 'message' && msg.length === 0));
      }),
      { numRuns: 200 },
    );
  });
});

test('makeNonce: 32 random bytes as 64 hex characters, never repeated', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const n = makeNonce();
    assert.match(n, /^[0-9a-f]{64}$/);
    seen.add(n);
  }
  assert.equal(seen.size, 200);
});
