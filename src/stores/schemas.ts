import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery } from '../platform/http/schemas';
import { SCOPES } from '../platform/http/route';

export const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)));

export const ModeSettingsSchema = Obj(
  {
    mode: ModeSchema,
    returnUrlDomains: Type.Array(Type.String(), { description: 'Hosts a return URL may use (the host itself or any subdomain of it)' }),
    paymentProvider: Nullable(Type.Union([Type.Literal('simulator'), Type.Literal('toss')]), {
      description: '`simulator` (test mode only) or `toss`; null means payment setup is incomplete and checkout answers CHECKOUT_NOT_CONFIGURED',
    }),
    tossClientKey: Nullable(Type.String()),
    tossSecretKeySet: Type.Boolean({ description: 'Whether a Toss secret key is stored (it is never returned)' }),
    checkoutConfigured: Type.Boolean(),
  },
  { title: 'ModeSettings' },
);

export const StoreSchema = Obj(
  {
    id: Type.String(),
    name: Type.String(),
    publicContactVerified: Type.Boolean({ description: 'Checkout needs a verified public contact (PUBLIC_CONTACT_VERIFICATION_REQUIRED otherwise)' }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
    settings: Obj({ live: ModeSettingsSchema, test: ModeSettingsSchema }),
  },
  { title: 'Store' },
);
export type StoreView = Static<typeof StoreSchema>;

export const CreateStoreBody = Obj({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  publicContactVerified: Type.Optional(Type.Boolean()),
}, { title: 'CreateStoreRequest' });
export const CreateStoreResult = Obj({
  store: StoreSchema,
  ownerToken: Type.String({ description: 'The owner token `own_…`. Shown only here; store it safely.' }),
}, { title: 'CreateStoreResult' });

export const UpdateStoreBody = Obj({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  publicContactVerified: Type.Optional(
    Type.Boolean({ description: 'Read-only for the store: sending it answers 403 ADMIN_FORBIDDEN. The operator sets it (`POST /admin/v1/stores/{id}/verify` or `commerce store verify`).' }),
  ),
}, { title: 'UpdateStoreRequest' });

export const OwnerTokenResult = Obj(
  {
    storeId: Type.String(),
    ownerToken: Type.String({ description: 'The new owner token `own_…`. Shown only here; the previous token stopped working.' }),
  },
  { title: 'OwnerToken' },
);
export const OwnerTokenRevoked = Obj({ storeId: Type.String(), ownerTokenActive: Type.Literal(false) }, { title: 'OwnerTokenRevoked' });
export const VerifyStoreBody = Obj({
  verified: Type.Optional(Type.Boolean({ description: 'true (default) marks the public contact verified; false takes the mark back' })),
}, { title: 'VerifyStoreRequest' });

export const ModeParams = Obj({ mode: ModeSchema });
export const UpdateModeSettingsBody = Obj({
  returnUrlDomains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' }), { maxItems: 50 })),
  paymentProvider: Type.Optional(Nullable(Type.Union([Type.Literal('simulator'), Type.Literal('toss')]))),
  tossClientKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  tossSecretKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
}, { title: 'UpdateModeSettingsRequest' });

export const ApiKeySchema = Obj(
  {
    id: Type.String(),
    mode: ModeSchema,
    name: Type.String(),
    keyHint: Type.String({ description: 'First characters of the key' }),
    scopes: Type.Array(ScopeSchema),
    ipAllowlist: Nullable(Type.Array(Type.String())),
    productIds: Nullable(Type.Array(Type.String())),
    status: Type.Union([Type.Literal('active'), Type.Literal('rotating'), Type.Literal('expired'), Type.Literal('revoked')]),
    createdAt: DateTime(),
    expiresAt: Nullable(DateTime('End of the grace period of a rotated key')),
    revokedAt: Nullable(DateTime()),
    rotatedTo: Nullable(Type.String()),
    lastUsedAt: Nullable(DateTime('Last authenticated request, to the minute')),
  },
  { title: 'ApiKey' },
);
export type ApiKeyView = Static<typeof ApiKeySchema>;

export const CreateApiKeyBody = Obj({
  mode: ModeSchema,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
  ipAllowlist: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 2, maxLength: 64 }), { maxItems: 100, description: 'IPv4/IPv6 addresses or CIDR ranges' }))),
  productIds: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, description: 'Limit the key to these products' }))),
}, { title: 'CreateApiKeyRequest' });
export const ApiKeyWithSecret = Obj({ apiKey: ApiKeySchema, secret: Type.String({ description: 'The key itself; shown only here' }) }, { title: 'ApiKeyWithSecret' });
export const RotateApiKeyBody = Obj({
  graceHours: Type.Optional(Type.Integer({ minimum: 0, maximum: 720, description: 'How long the old key keeps working (default 24)' })),
}, { title: 'RotateApiKeyRequest' });
export const RotateApiKeyResult = Obj({ apiKey: ApiKeySchema, secret: Type.String(), previous: ApiKeySchema }, { title: 'RotateApiKeyResult' });
export const ListApiKeysQuery = PageQuery({ mode: Type.Optional(ModeSchema) });
export const ApiKeyPage = PageOf(ApiKeySchema, 'ApiKeyPage');
