import { Type, type Static } from '@sinclair/typebox';
import { DateTime, ModeSchema, Nullable, Obj, PageOf, PageQuery } from '../platform/http/schemas';
import { SCOPES } from '../platform/http/route';
import { OneLineText, PlainText } from '../platform/text';
import type { StoreSettingsSection } from './settings-section';
import { PROVIDER_NAMES } from '../payments/registry';

export const ScopeSchema = Type.Union(SCOPES.map((s) => Type.Literal(s)));

export const ModeSettingsSchema = Obj(
  {
    mode: ModeSchema,
    returnUrlDomains: Type.Array(Type.String(), { description: 'Hosts a return URL may use (the host itself or any subdomain of it)' }),
    paymentProvider: Nullable(Type.Union(PROVIDER_NAMES.map((n) => Type.Literal(n))), {
      description: '`simulator` (test mode only), `toss` or `portone` (PortOne V2 in front of the seller\'s own PG contract); null means payment setup is incomplete and checkout answers CHECKOUT_NOT_CONFIGURED',
    }),
    tossClientKey: Nullable(Type.String()),
    tossSecretKeySet: Type.Boolean({ description: 'Whether a Toss secret key is stored (it is never returned)' }),
    tossBillingClientKey: Nullable(Type.String(), {
      description:
        'Client key of the 자동결제 (billing) MID, when Toss contracted automatic payments under a MID of their own. With this pair set, ' +
        'subscriptions (card registration, billing key issue, renewals, card change) use it and one-time payments keep the first pair',
    }),
    tossBillingSecretKeySet: Type.Boolean({ description: 'Whether the 자동결제 MID\'s secret key is stored (it is never returned)' }),
    checkoutConfigured: Type.Boolean(),
    foreignMethods: Type.Array(Type.Union([Type.Literal('foreign_card'), Type.Literal('paypal')]), {
      description:
        'Extension (buyers abroad): the methods for buyers abroad the payment page offers for one-time products. `foreign_card`: cards issued abroad in Toss\'s ' +
        'multi-language card window, charged and settled in won. `paypal`: PayPal through Toss, charged in US dollars at `usdKrwRate`. Each needs its own ' +
        'contract with Toss (a MID enabled for it); both are off by default. Neither is offered for subscriptions (Toss documents no 자동결제 for them).',
    }),
    usdKrwRate: Nullable(Type.Integer(), {
      description:
        'Extension: the fixed rate the store sets for PayPal, in won per US$1 (e.g. 1350). A PayPal buyer pays the won price ÷ rate, rounded half up to the cent ' +
        '(39,000원 at 1350 = US$28.89). Required while `paypal` is enabled.',
    }),
    portoneStoreId: Nullable(Type.String({ description: "PortOne's store id (`store-…`, 콘솔 › 결제 연동 › 연동 정보), when the mode takes payments through PortOne" })),
    portoneApiSecretSet: Type.Boolean({ description: "Whether PortOne's V2 API Secret is stored (sealed; it is never returned)" }),
    portoneWebhookSecretSet: Type.Boolean({ description: "Whether PortOne's webhook secret (`whsec_…`) is stored (sealed; it is never returned)" }),
    portoneChannelKeys: Type.Record(Type.String(), Type.String(), {
      description: "PortOne's channel key per payment method (`card`, `virtual_account`, …): the payment window opens the method's channel. A method without a key is not offered on PortOne",
    }),
    tossWebhookUrl: Type.String({
      description:
        'Register this URL in Toss\'s developer center (웹훅, events PAYMENT_STATUS_CHANGED, CANCEL_STATUS_CHANGED and BILLING_DELETED) for this mode\'s keys: ' +
        'cancels made in Toss\'s merchant admin then become refunds here (`source: gateway`), a payment Toss approved completes its checkout, and a billing key Toss reports deleted is checked by the next charge (Toss\'s NOT_FOUND_BILLING then clears the subscription\'s card; the webhook alone changes nothing)',
    }),
    portoneWebhookUrl: Type.String({
      description:
        "Register this URL in PortOne's console (결제 연동 › 연동 정보 › 웹훅, version 2024-04-25) for this mode, with its webhook secret saved as `portoneWebhookSecret`: " +
        'each delivery is verified with that secret (unsigned or forged deliveries are refused with 400) and then only the payment read back from PortOne counts: ' +
        'a 가상계좌 deposit marks its order paid, a payment whose answer was lost completes its checkout',
    }),
    buyerPageUrl: Type.String({
      description:
        "The store's public buyer page in this mode (내 구매내역: `/s/{storeId}/orders`, test mode `/s/{storeId}/test/orders`). Link to it from your site: " +
        'a buyer signs in with the e-mail they paid with (a one-time link by mail, 15 minutes) and sees their orders, receipts, licence keys and devices, ' +
        'refund requests and 현금영수증, and opens the portal of each subscription (구독 관리) with no call from your backend. Add `?lang=en` for English',
    }),
  },
  { title: 'ModeSettings' },
);

// The store's own properties; another module's settings (the buyer mails, kept by mail) come between `settings` and
// `allowRepeatTrials` through the `StoreSettingsSection` port (`storeSchemas`), so the answer reads as one store.
const storeHead = {
  id: Type.String(),
  name: Type.String(),
  publicContactVerified: Type.Boolean({ description: 'Live checkout needs a verified public contact (PUBLIC_CONTACT_VERIFICATION_REQUIRED otherwise); test mode does not' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  settings: Obj({ live: ModeSettingsSchema, test: ModeSettingsSchema }),
};
const storeTail = {
  allowRepeatTrials: Type.Boolean({
    description:
      'A product\'s free trial once per buyer (false, the default): a checkout whose e-mail box, phone number or registered card already started a trial of the same product in this mode is refused on the payment page (nothing is charged). ' +
      'The buyer is compared normalised: e-mail lower-cased; Gmail dots ignored and googlemail.com read as gmail.com; a +tag dropped for providers that deliver it to the same mailbox (gmail.com, outlook.com, hotmail.com, live.com, msn.com, icloud.com, me.com, mac.com, fastmail.com, proton.me, protonmail.com, pm.me), kept elsewhere; phone digits only, +82/0082 read as the domestic 0. ' +
      'true offers the trial again to everyone.',
  }),
  cashReceiptMandatory: Type.Boolean({
    description:
      'The seller is a 현금영수증 의무발행업종 (전자상거래 소매업, 소프트웨어 소매업; since 2021): a 계좌이체 or 가상계좌 sale of 100,000원 or more gets a 현금영수증 ' +
      "even when the buyer asks for none, issued as 소득공제 to the National Tax Service's self-issue number 010-000-1234 (a missing one costs the seller a 20% 가산세). Default false.",
  }),
};
/** The store's own part of `Store` (what the store service reads); the sections' parts are added by the routes. */
const StoreOwnSchema = Obj({ ...storeHead, ...storeTail });
export type StoreView = Static<typeof StoreOwnSchema>;

export const CreateStoreBody = Obj({
  name: OneLineText({ minLength: 1, maxLength: 100 }),
  publicContactVerified: Type.Optional(Type.Boolean()),
}, { title: 'CreateStoreRequest' });

const updateHead = { name: Type.Optional(OneLineText({ minLength: 1, maxLength: 100 })) };
const updateTail = {
  allowRepeatTrials: Type.Optional(Type.Boolean({ description: 'See Store.allowRepeatTrials' })),
  cashReceiptMandatory: Type.Optional(Type.Boolean({ description: 'See Store.cashReceiptMandatory' })),
  publicContactVerified: Type.Optional(
    Type.Boolean({ description: 'Read-only for the store: sending it answers 403 ADMIN_FORBIDDEN. The operator sets it (`POST /admin/v1/stores/{id}/verify` or `commerce store verify`).' }),
  ),
};

/** `Store`, `CreateStoreResult` and `UpdateStoreRequest` with the sections' properties in their places. */
export function storeSchemas(sections: StoreSettingsSection[]) {
  // The sections' static types are theirs: here their properties count as schema only (the answer is checked by it).
  const view = Object.assign({}, ...sections.map((s) => s.view)) as Record<never, never>;
  const patch = Object.assign({}, ...sections.map((s) => s.patch)) as Record<never, never>;
  const StoreSchema = Obj({ ...storeHead, ...view, ...storeTail }, { title: 'Store' });
  const CreateStoreResult = Obj({
    store: StoreSchema,
    ownerToken: Type.String({ description: 'The owner token `own_…`. Shown only here; store it safely.' }),
  }, { title: 'CreateStoreResult' });
  const UpdateStoreBody = Obj({ ...updateHead, ...patch, ...updateTail }, { title: 'UpdateStoreRequest' });
  return { StoreSchema, CreateStoreResult, UpdateStoreBody };
}

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
  paymentProvider: Type.Optional(Nullable(Type.Union(PROVIDER_NAMES.map((n) => Type.Literal(n))))),
  tossClientKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  tossSecretKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  tossBillingClientKey: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Client key of the 자동결제 (billing) MID; null removes it' }))),
  tossBillingSecretKey: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Secret key of the 자동결제 (billing) MID, checked and stored like `tossSecretKey`; null removes it' })),
  ),
  foreignMethods: Type.Optional(Type.Array(Type.Union([Type.Literal('foreign_card'), Type.Literal('paypal')]), { maxItems: 2, description: 'Methods for buyers abroad to offer (see ModeSettings.foreignMethods)' })),
  usdKrwRate: Type.Optional(Nullable(Type.Integer({ description: 'Won per US$1 for PayPal (100–100000); null removes it (refused while `paypal` is enabled)' }))),
  portoneStoreId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: "PortOne's store id (`store-` + UUID); null removes it" }))),
  portoneApiSecret: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 500, description: "PortOne's V2 API Secret: tried against PortOne's API with the store id before it is sealed (refused: VALIDATION_FAILED, nothing saved); null removes it" })),
  ),
  portoneWebhookSecret: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 500, description: "PortOne's webhook secret (`whsec_…`), sealed; webhooks are verified with it; null removes it" }))),
  portoneChannelKeys: Type.Optional(
    Type.Record(Type.String(), Type.String({ maxLength: 100 }), { description: 'Channel key per payment method (`channel-key-` + UUID); replaces the stored map; an empty string drops a method' }),
  ),
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
  name: PlainText({ minLength: 1, maxLength: 100 }),
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

// ---------- business details (migration 011) ----------

export const BusinessDetailsSchema = Obj(
  {
    companyName: Type.String({ description: '상호 (trade name)' }),
    representative: Type.String({ description: '대표자 (representative)' }),
    businessNumber: Type.String({ description: '사업자등록번호, written `123-45-67890`' }),
    mailOrderNumber: Type.String({ description: '통신판매업 신고번호 (or the exemption, e.g. `신고 면제 (간이과세자)`)' }),
    address: Type.String({ description: '사업장 주소' }),
    supportPhone: Nullable(Type.String({ description: '고객센터 전화번호, as typed' })),
    supportEmail: Nullable(Type.String({ description: '고객센터 이메일' })),
    sample: Type.Boolean({ description: 'Made-up details of the demo store; the pages label them as samples' }),
    updatedAt: DateTime(),
  },
  { title: 'BusinessDetails' },
);
export type BusinessDetailsView = Static<typeof BusinessDetailsSchema>;

export const BusinessDetailsBody = Obj(
  {
    companyName: Type.String({ maxLength: 200, description: '상호, 1–100 characters' }),
    representative: Type.String({ maxLength: 200, description: '대표자, 1–50 characters' }),
    businessNumber: Type.String({ maxLength: 20, description: '사업자등록번호: 10 digits, hyphens allowed; the check digit is verified' }),
    mailOrderNumber: Type.String({ maxLength: 200, description: '통신판매업 신고번호, 1–60 characters (exempt sellers write the exemption)' }),
    address: Type.String({ maxLength: 400, description: '사업장 주소, 1–200 characters' }),
    supportPhone: Type.Optional(Nullable(Type.String({ maxLength: 30, description: 'Korean phone number (02-1234-5678, 010-…, 1588-1234)' }))),
    supportEmail: Type.Optional(Nullable(Type.String({ maxLength: 254 }))), // checked by validateBusinessDetails (HTML e-mail grammar)
  },
  { title: 'BusinessDetailsRequest', description: 'The whole set, every time. At least one of `supportPhone` and `supportEmail`.' },
);
export type BusinessDetailsInput = Static<typeof BusinessDetailsBody>;

export const BusinessDetailsResult = Obj(
  {
    businessDetails: Nullable(BusinessDetailsSchema),
    liveReady: Type.Boolean({ description: 'Whether the details are set, so live checkout sessions may be created (CHECKOUT_NOT_CONFIGURED otherwise)' }),
  },
  { title: 'BusinessDetailsResult' },
);
