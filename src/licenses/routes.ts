import cors from '@fastify/cors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Module } from '../deps';
import { validationError } from '../platform/errors';
import { pageParams } from '../platform/http/pagination';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { LicenseAbuseLimits } from './abuse';
import * as appSvc from './app-service';
import { registerLicenseIssueJob } from './issue-job';
import { hashLicenseKey, keyFingerprint } from './keys';
import { clientBucket, isValidNonce } from './model';
import {
  ActivateBody,
  AdminLicensePage,
  AdminLicenseSchema,
  AdminListLicensesQuery,
  AppResponseSchema,
  DeactivateBody,
  EmptyBody,
  LicensePage,
  LicenseSchema,
  ListLicensesQuery,
  ReissueBody,
  RevokeBody,
  SigningKeyAdminList,
  SigningKeyAdminSchema,
  SigningKeysResponse,
  VerifyBody,
} from './schemas';
import * as svc from './service';
import { LicenseSigner } from './signing';
import { DOCS } from './docs';
import { MESSAGES } from '../platform/messages';

const APP_ERRORS = ['LICENSE_RATE_LIMITED', 'LICENSE_LOOKUP_BLOCKED'] as const;
/** The 200 answer of the app API, with its signature header documented beside the body. */
const SignedAnswer = {
  ...AppResponseSchema,
  headers: {
    'Service-Signature': {
      type: 'string',
      description: 'kid="<kid>", alg="ed25519", sig="<base64 of the 64-byte Ed25519 signature over the exact response body bytes>"',
      examples: ['kid="lsk_01jd8x0c4e7w2k3m5n6p7q8r9s", alg="ed25519", sig="3q2+7w…=="'],
    },
  },
};

/** Browsers may call only these (license app API and the signing keys); everything else is server-to-server. */
const BROWSER_PATHS = new Set(['/v1/licenses/activate', '/v1/licenses/deactivate', '/v1/licenses/verify', '/v1/licenses/signing-keys']);

const licensesModule: Module = async (app, deps) => {
  // CORS only in this module's scope, and within it only for the browser-facing paths: no other route pays for it.
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (req, cb) => {
      const path = (req.url ?? '').split('?')[0];
      if (BROWSER_PATHS.has(path)) cb(null, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'], allowedHeaders: ['Content-Type'], exposedHeaders: ['Service-Signature', 'Retry-After', 'Request-Id'], maxAge: 600 });
      else cb(null, { origin: false });
    },
  });
  const signer = new LicenseSigner(deps);
  const limits = new LicenseAbuseLimits(deps);
  registerLicenseIssueJob(deps);

  // Counted before the body is validated (once it is parsed), so malformed floods spend the address's budget too. The
  // address and the key are admitted together: one Redis round trip when REDIS_URL is set.
  const admit = async (req: FastifyRequest) => {
    const key = (req.body as { key?: unknown } | undefined)?.key;
    if (typeof key !== 'string') return limits.admitAddress(clientBucket(req.ip));
    const keyHash = hashLicenseKey(deps.config.masterKey, key);
    keyHashes.set(req, keyHash);
    await limits.admit(clientBucket(req.ip), keyHash);
  };
  const keyHashes = new WeakMap<FastifyRequest, string>();

  /** The shared path of the three app calls: nonce, per-key budget, the use case, not_found accounting, signature. */
  async function signedAnswer(req: FastifyRequest, reply: FastifyReply, input: { key: string; productId: string; nonce: string }, run: (ref: appSvc.KeyRef) => Promise<appSvc.AppOutcome>) {
    if (!isValidNonce(input.nonce)) {
      throw validationError([{ field: 'nonce', message: MESSAGES.licenses.nonceInvalid }]);
    }
    const keyHash = keyHashes.get(req) ?? hashLicenseKey(deps.config.masterKey, input.key);
    const outcome = await run({ keyHash, productId: input.productId });
    if (outcome.status === 'not_found') await limits.recordNotFound(clientBucket(req.ip));
    // Field order is the contract's, then the additions that bind the answer to what was asked (productId exactly as
    // sent, the key's fingerprint), so it cannot be replayed as the answer about another product or key. The bytes
    // signed are the bytes sent (a string body is not serialized again).
    const signed = await signer.sign({
      ...outcome,
      nonce: input.nonce,
      issuedAt: deps.clock.now().toISOString(),
      productId: input.productId,
      keyFingerprint: keyFingerprint(input.key),
    });
    reply.header('Service-Signature', signed.header).header('Cache-Control', 'no-store').type('application/json; charset=utf-8');
    return reply.send(signed.body);
  }

  const appTags = ['License app API'];
  app.post(
    '/v1/licenses/activate',
    {
      ...op(
        { operationId: 'activateLicense', summary: 'Activate a license on a device (app)', description: DOCS.activate, tags: appTags },
        { auth: 'none', errors: ['MAX_ACTIVATIONS_REACHED', ...APP_ERRORS] },
        { body: ActivateBody, response: { 200: SignedAnswer } },
      ),
      preValidation: admit,
    },
    async (req, reply) => signedAnswer(req, reply, req.body, (ref) => appSvc.activate(deps, ref, req.body.label ?? null)),
  );
  app.post(
    '/v1/licenses/deactivate',
    {
      ...op(
        { operationId: 'deactivateLicense', summary: 'Deactivate a device, freeing its slot (app)', description: DOCS.deactivate, tags: appTags },
        { auth: 'none', errors: [...APP_ERRORS] },
        { body: DeactivateBody, response: { 200: SignedAnswer } },
      ),
      preValidation: admit,
    },
    async (req, reply) => signedAnswer(req, reply, req.body, (ref) => appSvc.deactivate(deps, ref, req.body.activationId)),
  );
  app.post(
    '/v1/licenses/verify',
    {
      ...op(
        { operationId: 'verifyLicense', summary: 'Verify a license (app)', description: DOCS.verify, tags: appTags },
        { auth: 'none', errors: [...APP_ERRORS] },
        { body: VerifyBody, response: { 200: SignedAnswer } },
      ),
      preValidation: admit,
    },
    async (req, reply) => signedAnswer(req, reply, req.body, (ref) => appSvc.verify(deps, ref, req.body.activationId ?? null)),
  );
  app.get(
    '/v1/licenses/signing-keys',
    op(
      { operationId: 'listSigningKeys', summary: 'List the public keys that sign license app answers', description: DOCS.signingKeys, tags: appTags },
      { auth: 'none', errors: [] },
      { response: { 200: SigningKeysResponse } },
    ),
    async (_req, reply) => {
      reply.header('Cache-Control', 'public, max-age=60');
      return { keys: await signer.publicKeys() };
    },
  );

  // ---------- server reads ----------
  const tags = ['Licenses'];
  app.get(
    '/v1/licenses',
    op(
      { operationId: 'listLicenses', summary: 'List licenses, newest first', description: DOCS.list, tags },
      { auth: 'api_key', scope: 'licenses:read', errors: [] },
      { querystring: ListLicensesQuery, response: { 200: LicensePage } },
    ),
    async (req) => svc.listLicenses(deps, req.auth!, { ...pageParams(req.query), productId: req.query.productId, orderId: req.query.orderId }),
  );
  app.get(
    '/v1/licenses/:id',
    op(
      { operationId: 'getLicense', summary: 'Read a license with its activations', description: DOCS.get, tags },
      { auth: 'api_key', scope: 'licenses:read', errors: ['LICENSE_NOT_FOUND'] },
      { params: IdParams, response: { 200: LicenseSchema } },
    ),
    async (req) => svc.getLicense(deps, req.auth!, req.params.id),
  );

  // ---------- seller console ----------
  app.get(
    '/admin/v1/licenses',
    op(
      { operationId: 'adminListLicenses', summary: 'List the store\'s licenses, newest first', tags },
      { auth: 'owner' },
      { querystring: AdminListLicensesQuery, response: { 200: AdminLicensePage } },
    ),
    async (req) => svc.adminListLicenses(deps, req.owner!.storeId, { ...pageParams(req.query), mode: req.query.mode, productId: req.query.productId, orderId: req.query.orderId, key: req.query.key, buyerEmail: req.query.buyerEmail }),
  );
  app.get(
    '/admin/v1/licenses/:id',
    op(
      { operationId: 'adminGetLicense', summary: 'Read a license with its activations and issuance attempts', tags },
      { auth: 'owner', errors: ['LICENSE_NOT_FOUND'] },
      { params: IdParams, response: { 200: AdminLicenseSchema } },
    ),
    async (req) => svc.adminGetLicense(deps, req.owner!.storeId, req.params.id),
  );
  app.post(
    '/admin/v1/licenses/:id/revoke',
    op(
      { operationId: 'revokeLicense', summary: 'Revoke a license', description: DOCS.revoke, tags },
      { auth: 'owner', errors: ['LICENSE_NOT_FOUND', 'LICENSE_NOT_ACTIVE'] },
      { params: IdParams, body: RevokeBody, response: { 200: AdminLicenseSchema } },
    ),
    async (req) => svc.revokeLicense(deps, req.owner!.storeId, req.params.id, req.body.reason ?? null),
  );
  app.post(
    '/admin/v1/licenses/:id/reissue',
    op(
      { operationId: 'reissueLicense', summary: 'Re-issue a license with a new key (the old one is revoked)', description: DOCS.reissue, tags },
      { auth: 'owner', errors: ['LICENSE_NOT_FOUND', 'LICENSE_NOT_ACTIVE'] },
      { params: IdParams, body: ReissueBody, response: { 201: AdminLicenseSchema } },
    ),
    async (req, reply) => {
      reply.code(201);
      return svc.reissueLicense(deps, req.owner!.storeId, req.params.id, req.body.reason ?? null);
    },
  );

  // Service-wide keys, not a store's: the operator manages them.
  const keyTags = ['License signing keys'];
  app.get(
    '/admin/v1/signing-keys',
    op(
      { operationId: 'adminListSigningKeys', summary: 'List license signing keys with their schedule (operator)', description: DOCS.signingKeysAdmin, tags: keyTags },
      { auth: 'operator' },
      { response: { 200: SigningKeyAdminList } },
    ),
    async () => ({ keys: await signer.adminList() }),
  );
  app.post(
    '/admin/v1/signing-keys/rotate',
    op(
      { operationId: 'rotateSigningKey', summary: 'Publish a new license signing key (operator)', description: DOCS.rotate, tags: keyTags },
      { auth: 'operator' },
      { body: EmptyBody, response: { 201: SigningKeyAdminSchema } },
    ),
    async (_req, reply) => {
      reply.code(201);
      return signer.rotate();
    },
  );
};

export default licensesModule;
