import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery } from '../platform/http/schemas';
import { NONCE_MAX_LENGTH, NONCE_PATTERN } from './model';
import { PlainText } from '../platform/text';

export const LicenseStatusSchema = Type.Union([Type.Literal('active'), Type.Literal('pending'), Type.Literal('expired'), Type.Literal('revoked')], {
  description:
    '`active`; `pending` (issued by the seller\'s system, key not received yet); `expired` (evaluated at request time: `expiresAt` <= now); `revoked`',
});

export const ActivationSchema = Obj(
  {
    id: Type.String({ description: 'Issued by the service (`act_…`)' }),
    label: Nullable(Type.String(), { description: 'Device name given at activation' }),
    activatedAt: DateTime(),
    lastVerifiedAt: Nullable(DateTime('Last verify call that named this activation')),
    deactivatedAt: Nullable(DateTime('Set by deactivate; a deactivated activation frees its slot')),
  },
  { title: 'LicenseActivation' },
);
export type ActivationView = Static<typeof ActivationSchema>;

const licenseProps = {
  id: Type.String(),
  mode: ModeSchema,
  key: Nullable(Type.String(), { description: 'The license key; `null` while a seller-issued key is pending' }),
  productId: Type.String(),
  productName: Type.String(),
  orderId: Type.String(),
  orderItemId: Nullable(Type.String()),
  buyerEmail: Type.String(),
  buyerName: Type.String(),
  status: LicenseStatusSchema,
  maxActivations: Nullable(Type.Integer({ minimum: 1 }), { description: '`null` means unlimited' }),
  activationCount: Type.Integer({ minimum: 0, description: 'Current activations (not deactivated)' }),
  issuedAt: DateTime(),
  expiresAt: Nullable(DateTime()),
  revokedAt: Nullable(DateTime()),
  revokeReason: Nullable(Type.String()),
  rotatedFrom: Nullable(Type.String({ description: 'Id of the license this one replaced (re-issue)' })),
  activations: Nullable(Type.Array(ActivationSchema), { description: 'Every activation of the license, oldest first, deactivated ones included' }),
};

export const LicenseSchema = Obj(licenseProps, { title: 'License' });
export type LicenseView = Static<typeof LicenseSchema>;
export const LicensePage = PageOf(LicenseSchema, 'LicensePage');

export const ListLicensesQuery = PageQuery({
  productId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

// ---------- license app API ----------

const KeyField = Type.String({ minLength: 1, maxLength: 600, description: 'The license key (case and spaces are ignored)' });
const ProductIdField = Type.String({ minLength: 1, maxLength: 100 });
const NonceField = Type.String({
  minLength: 22,
  maxLength: NONCE_MAX_LENGTH,
  pattern: NONCE_PATTERN,
  description:
    'Fresh random value per request, echoed in the signed answer. Hex (an even number of digits, at least 32 = 16 bytes) or base64/base64url ' +
    '(one alphabet, at least 22 characters before the padding, at most two `=` at the end; 22 characters carry 16 bytes). A value is accepted ' +
    'when it is valid in either form, so any run of 22 or more hex digits is accepted (as base64 when it is not valid hex). ' +
    `At most ${NONCE_MAX_LENGTH} characters. The pattern is the whole rule. A 32-byte hex value (64 digits) is recommended.`,
});
const ActivationIdField = Type.String({ minLength: 1, maxLength: 100 });

export const ActivateBody = Obj(
  { key: KeyField, productId: ProductIdField, nonce: NonceField, label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Device name' })) },
  { title: 'LicenseActivateRequest' },
);
export const DeactivateBody = Obj({ key: KeyField, productId: ProductIdField, nonce: NonceField, activationId: ActivationIdField }, { title: 'LicenseDeactivateRequest' });
export const VerifyBody = Obj({ key: KeyField, productId: ProductIdField, nonce: NonceField, activationId: Type.Optional(ActivationIdField) }, { title: 'LicenseVerifyRequest' });

export const AppStatusSchema = Type.Union(
  [Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked'), Type.Literal('pending'), Type.Literal('not_found')],
  { description: 'The license\'s status at signing time; `not_found` for a key (with this productId) the service does not know' },
);

export const AppResponseSchema = Obj(
  {
    status: AppStatusSchema,
    expiresAt: Nullable(DateTime()),
    maxActivations: Nullable(Type.Integer({ minimum: 1 }), { description: '`null` means unlimited' }),
    activationCount: Type.Integer({ minimum: 0 }),
    mode: ModeSchema,
    activation: Nullable(ActivationSchema),
    nonce: Type.String({ description: 'The request nonce, unchanged' }),
    issuedAt: DateTime('When the answer was signed; clients refuse answers more than 5 minutes from their clock'),
    productId: Type.String({
      description: 'Addition to the contract: the request\'s `productId`, exactly as sent. Clients refuse an answer naming another product.',
    }),
    keyFingerprint: Type.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      description:
        'Addition to the contract: which license key the answer is about, without the key. base64url without padding (43 characters) of ' +
        'SHA-256 over the UTF-8 bytes of `commerce-license-key-fingerprint:v1:` followed by the request key normalized (Unicode NFC, then ' +
        'upper-case, then every whitespace character removed). Clients compute it from the key they sent and refuse an answer that differs. ' +
        'Test vector: key `abcde-fghjk-mnpqr-stvwx-yz012` gives `S67m22Y21iqjHuFs7_8P0ASESOvrTjV51_l09xkbxHI`.',
      examples: ['S67m22Y21iqjHuFs7_8P0ASESOvrTjV51_l09xkbxHI'],
    }),
  },
  {
    title: 'LicenseAppResponse',
    description:
      'Signed: the `Service-Signature` header carries an Ed25519 signature over the exact bytes of this body. Verify the bytes as received, before parsing. ' +
      'Besides the contract\'s fields (`status` … `issuedAt`), every answer, `not_found` included, names what it is about: `productId` and ' +
      '`keyFingerprint`, so a signed answer about one license cannot be passed off as the answer about another.',
  },
);
export type AppResponse = Static<typeof AppResponseSchema>;

export const SigningKeysResponse = Obj(
  {
    keys: Type.Array(
      Obj({
        kid: Type.String(),
        publicKey: Type.String({ description: 'base64 of the raw 32-byte Ed25519 public key' }),
        createdAt: DateTime('When the key was published; it may sign from a few minutes later'),
      }),
    ),
  },
  { title: 'SigningKeys' },
);

// ---------- seller console ----------

export const IssueAttemptSchema = Obj(
  {
    attemptedAt: DateTime(),
    outcome: Type.Union([Type.Literal('issued'), Type.Literal('failed'), Type.Literal('no_endpoint')]),
    endpointId: Nullable(Type.String()),
    httpStatus: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    durationMs: Nullable(Type.Integer()),
  },
  { title: 'LicenseIssueAttempt' },
);

export const AdminLicenseSchema = Obj(
  {
    ...licenseProps,
    issuer: Type.Union([Type.Literal('service'), Type.Literal('seller')], { description: 'Who makes the key: this service, or the seller through `license.issue`' }),
    issueAttempts: Type.Array(IssueAttemptSchema, { description: 'Seller-side issuance: the latest 20 attempts, newest first (empty for service-issued keys)' }),
  },
  { title: 'AdminLicense' },
);
export type AdminLicenseView = Static<typeof AdminLicenseSchema>;
export const AdminLicensePage = PageOf(AdminLicenseSchema, 'AdminLicensePage');
export const AdminListLicensesQuery = PageQuery({
  mode: Type.Optional(ModeSchema),
  productId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  key: Type.Optional(Type.String({ minLength: 1, maxLength: 300, description: 'The license key (any case; found by its hash)' })),
  buyerEmail: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'Exact, case-insensitive' })),
});

export const RevokeBody = Obj({ reason: Type.Optional(PlainText({ minLength: 1, maxLength: 500 })) }, { title: 'RevokeLicenseRequest' });
export const ReissueBody = Obj({ reason: Type.Optional(PlainText({ minLength: 1, maxLength: 500, description: 'Revoke reason recorded on the old license (default `reissued`)' })) }, { title: 'ReissueLicenseRequest' });

export const SigningKeyAdminSchema = Obj(
  {
    kid: Type.String(),
    publicKey: Type.String(),
    createdAt: DateTime('Published (listed) from'),
    signsFrom: DateTime('Signs answers from'),
    stopsSigningAt: Nullable(DateTime('When the next key took or takes over')),
    listedUntil: Nullable(DateTime('Removed from the public list after this (24 hours after it stops signing)')),
    state: Type.Union([Type.Literal('scheduled'), Type.Literal('active'), Type.Literal('retired')]),
    listed: Type.Boolean({ description: 'Currently on GET /v1/licenses/signing-keys' }),
  },
  { title: 'SigningKeyAdmin' },
);
export type SigningKeyAdminView = Static<typeof SigningKeyAdminSchema>;
export const SigningKeyAdminList = Obj({ keys: Type.Array(SigningKeyAdminSchema) }, { title: 'SigningKeyAdminList' });
export const EmptyBody = Obj({}, { title: 'RotateSigningKeyRequest' });
