// A stand-in for the license app API that signs exactly per the wire contract, with node:crypto (a different
// Ed25519 implementation from the client's WebCrypto path). Tests reshape its answers through `respond`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface AppRequest {
  path: string;
  body: Record<string, any>;
}

export interface Reply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: string; // base64 of the raw 32 bytes
  createdAt: string;
}

export function makeSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { kid, privateKey, publicKey: raw.toString('base64'), createdAt: new Date().toISOString() };
}

export function signatureHeader(key: SigningKey, body: string | Buffer): string {
  const sig = sign(null, typeof body === 'string' ? Buffer.from(body, 'utf8') : body, key.privateKey);
  return `kid="${key.kid}", alg="ed25519", sig="${sig.toString('base64')}"`;
}

/** The service's keyFingerprint, computed here with node:crypto (the client uses WebCrypto). */
export function fingerprintOf(key: string): string {
  const normalized = key.normalize('NFC').toUpperCase().replace(/\s+/g, '');
  return createHash('sha256').update(`commerce-license-key-fingerprint:v1:${normalized}`, 'utf8').digest('base64url');
}

export class FakeLicenseServer {
  url = '';
  /** Keys the signing-keys endpoint lists. */
  listed: SigningKey[] = [makeSigningKey('k1')];
  /** The key answers are signed with (need not be listed). */
  signer: SigningKey = this.listed[0];
  /** The server's clock for issuedAt. */
  now: () => Date = () => new Date();
  requests: AppRequest[] = [];
  keyFetches = 0;
  /** Override to shape one answer; default is a signed, active answer echoing the request. */
  respond: ((req: AppRequest, server: FakeLicenseServer) => Reply | Promise<Reply>) | null = null;
  private server: Server | null = null;
  private sockets = new Set<import('node:net').Socket>();

  static async start(): Promise<FakeLicenseServer> {
    const s = new FakeLicenseServer();
    s.server = createServer((req, res) => void s.handle(req, res));
    s.server.on('connection', (sock) => {
      s.sockets.add(sock);
      sock.on('close', () => s.sockets.delete(sock));
    });
    await new Promise<void>((resolve) => s.server!.listen(0, '127.0.0.1', resolve));
    s.url = `http://127.0.0.1:${(s.server!.address() as AddressInfo).port}`;
    return s;
  }

  /** The answer the real service would give an active license with one activation. */
  answerFor(req: AppRequest, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const t = this.now().toISOString();
    const deactivating = req.path.endsWith('/deactivate');
    return {
      status: 'active',
      expiresAt: null,
      maxActivations: 3,
      activationCount: deactivating ? 0 : 1,
      mode: 'test',
      activation: {
        id: req.body.activationId ?? 'act_01',
        label: req.body.label ?? null,
        activatedAt: t,
        lastVerifiedAt: req.path.endsWith('/verify') ? t : null,
        deactivatedAt: deactivating ? t : null,
      },
      nonce: req.body.nonce,
      issuedAt: t,
      productId: req.body.productId,
      keyFingerprint: fingerprintOf(String(req.body.key)),
      ...overrides,
    };
  }

  /** A 200 answer whose body is `body` byte for byte, signed by `key`. */
  signed(body: string | object, key: SigningKey = this.signer): Reply {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { status: 200, body: text, headers: { 'service-signature': signatureHeader(key, text) } };
  }

  error(status: number, code: string, message: string, headers: Record<string, string> = {}, details?: object): Reply {
    return { status, body: JSON.stringify({ statusCode: status, code, message, ...(details ? { details } : {}) }), headers };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    // The same CORS answer the service gives these paths (src/app.ts), so browser tests run cross-origin.
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-expose-headers', 'Service-Signature, Retry-After, Request-Id');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'GET, POST, OPTIONS', 'access-control-allow-headers': 'Content-Type', 'access-control-max-age': '600' }).end();
      return;
    }
    if (req.method === 'GET' && path === '/v1/licenses/signing-keys') {
      this.keyFetches++;
      const body = JSON.stringify({ keys: this.listed.map((k) => ({ kid: k.kid, publicKey: k.publicKey, createdAt: k.createdAt })) });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const appReq: AppRequest = { path, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') };
    this.requests.push(appReq);
    const reply = this.respond ? await this.respond(appReq, this) : this.signed(this.answerFor(appReq));
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers }).end(reply.body);
  }

  /** Stops listening and drops open keep-alive sockets, so the next request fails like a dead network. */
  async close(): Promise<void> {
    if (!this.server) return;
    const server = this.server;
    this.server = null;
    for (const sock of this.sockets) sock.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
