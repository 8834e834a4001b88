import type { Module } from '../deps';
import { op } from '../platform/http/route';
import { IdParams } from '../platform/http/schemas';
import { pageParams } from '../platform/http/pagination';
import {
  ApiKeyPage,
  ApiKeyWithSecret,
  CreateApiKeyBody,
  CreateStoreBody,
  ListApiKeysQuery,
  ModeParams,
  RotateApiKeyBody,
  RotateApiKeyResult,
  UpdateModeSettingsBody,
  ApiKeySchema,
  OwnerTokenResult,
  OwnerTokenRevoked,
  VerifyStoreBody,
  BusinessDetailsBody,
  BusinessDetailsResult,
  storeSchemas,
  type StoreView,
} from './schemas';
import * as svc from './service';
import * as keys from './api-keys';
import type { StoreSettingsSection } from './settings-section';

const tags = ['Store'];

/**
 * Seller console: stores, settings and API keys. `sections` are the settings other modules keep on the store (the buyer
 * mails, mail's): every answer that is a `Store` carries them, and `PATCH /admin/v1/store` changes them.
 */
export const storesModule = (sections: StoreSettingsSection[]): Module => async (app, deps) => {
  const { StoreSchema, CreateStoreResult, UpdateStoreBody } = storeSchemas(sections);
  const withSections = async (view: StoreView) => {
    let full: StoreView = view;
    for (const section of sections) full = { ...full, ...(await section.read(deps, view.id)) };
    return full;
  };

  app.post(
    '/admin/v1/stores',
    op({ operationId: 'createStore', summary: 'Create a store (operator)', tags }, { auth: 'operator' }, { body: CreateStoreBody, response: { 201: CreateStoreResult } }),
    async (req, reply) => {
      reply.code(201);
      const created = await svc.createStore(deps, req.body);
      return { ...created, store: await withSections(created.store) };
    },
  );

  app.get('/admin/v1/store', op({ operationId: 'getStore', summary: 'Read the store and its settings', tags }, { auth: 'owner' }, { response: { 200: StoreSchema } }), async (req) =>
    withSections(await svc.getStoreView(deps, req.owner!.storeId)),
  );

  app.patch(
    '/admin/v1/store',
    op(
      {
        operationId: 'updateStore',
        summary: 'Update the store name, which mails the service sends to its buyers, and who gets test-mode mails',
        description:
          '`publicContactVerified` is set by the operator only: sending it answers 403 ADMIN_FORBIDDEN. `buyerMails` turns mail kinds on or off (kinds left out stay as they are). ' +
          '`testMailRecipients` replaces the list of the store\'s own addresses that get a [테스트] copy of every test-mode mail through SMTP_URL: each must be an active dashboard member\'s e-mail, ' +
          'else 400 VALIDATION_FAILED naming the entry (`testMailRecipients.<i>`) and nothing is changed; `[]` turns the copies off.',
        tags,
      },
      { auth: 'owner', errors: ['ADMIN_FORBIDDEN'] },
      { body: UpdateStoreBody, response: { 200: StoreSchema } },
    ),
    async (req) => withSections(await svc.updateStore(deps, req.owner!.storeId, req.body, sections)),
  );

  app.post(
    '/admin/v1/owner-token/rotate',
    op(
      {
        operationId: 'rotateOwnerToken',
        summary: 'Rotate the owner token (the new one is shown once)',
        description: 'The token used for this call stops working at once; there is no grace period.',
        tags,
      },
      { auth: 'owner' },
      { response: { 200: OwnerTokenResult } },
    ),
    async (req) => svc.rotateOwnerToken(deps, req.owner!.storeId, req.owner!.tokenHash),
  );

  app.post(
    '/admin/v1/stores/:id/owner-token/rotate',
    op(
      { operationId: 'rotateStoreOwnerToken', summary: "Issue a new owner token for a store (operator); the old one stops working at once", tags },
      { auth: 'operator', errors: ['NOT_FOUND'] },
      { params: IdParams, response: { 200: OwnerTokenResult } },
    ),
    async (req) => svc.rotateOwnerToken(deps, req.params.id),
  );

  app.post(
    '/admin/v1/stores/:id/owner-token/revoke',
    op(
      { operationId: 'revokeStoreOwnerToken', summary: "Revoke a store's owner token now (operator); the store has none until one is rotated in", tags },
      { auth: 'operator', errors: ['NOT_FOUND'] },
      { params: IdParams, response: { 200: OwnerTokenRevoked } },
    ),
    async (req) => svc.revokeOwnerToken(deps, req.params.id),
  );

  app.post(
    '/admin/v1/stores/:id/verify',
    op(
      {
        operationId: 'verifyStorePublicContact',
        summary: "Mark a store's public contact verified, or not (operator)",
        description: 'A live checkout session in a store whose public contact is not verified answers PUBLIC_CONTACT_VERIFICATION_REQUIRED (test mode never asks for it). Only the operator sets it.',
        tags,
      },
      { auth: 'operator', errors: ['NOT_FOUND'] },
      { params: IdParams, body: VerifyStoreBody, response: { 200: StoreSchema } },
    ),
    async (req) => withSections(await svc.setPublicContactVerified(deps, req.params.id, req.body?.verified ?? true)),
  );

  app.put(
    '/admin/v1/store/settings/:mode',
    op(
      {
        operationId: 'updateModeSettings',
        summary: 'Set the return-URL allow-list and payment setup of one mode',
        description:
          'Fields left out stay as they are. `tossSecretKey` is stored encrypted and never returned. Toss keys are checked before ' +
          'anything is stored: the client key and the secret key must be of one kind (`test_` or `live_`) and of the mode\'s kind ' +
          '(live keys in live mode, test keys in test mode), and a new secret key is tried once at Toss with a harmless lookup. ' +
          'A key Toss refuses, or cannot be asked about, answers 400 VALIDATION_FAILED naming the field; nothing is stored. ' +
          '`tossBillingClientKey` / `tossBillingSecretKey` are a second pair for 자동결제 when Toss contracted it under its own MID; ' +
          'they are checked the same way. Subscriptions started or whose card is changed afterwards use that pair; one-time payments ' +
          'keep the first. Work already done stays with the pair it was done under (a billing key only works under the MID that issued it).',
        tags,
      },
      { auth: 'owner' },
      { params: ModeParams, body: UpdateModeSettingsBody, response: { 200: StoreSchema } },
    ),
    async (req) => withSections(await svc.updateModeSettings(deps, req.owner!.storeId, req.params.mode, req.body)),
  );

  const businessDescription =
    '상호, 대표자, 사업자등록번호, 통신판매업 신고번호, 주소, 고객센터 연락처 (phone and/or e-mail): shown in the footer of every hosted page ' +
    '(payment page, receipt, portal, status pages). Required for live mode: creating a live checkout session without them answers ' +
    '500 CHECKOUT_NOT_CONFIGURED with `details.reason` = `business_details_missing`. Test mode works without them.';

  app.get(
    '/admin/v1/store/business-details',
    op(
      { operationId: 'getBusinessDetails', summary: "Read the store's business details", description: businessDescription, tags },
      { auth: 'owner' },
      { response: { 200: BusinessDetailsResult } },
    ),
    async (req) => {
      const businessDetails = await svc.getBusinessDetails(deps.db, req.owner!.storeId);
      return { businessDetails, liveReady: businessDetails !== null };
    },
  );

  app.put(
    '/admin/v1/store/business-details',
    op(
      {
        operationId: 'updateBusinessDetails',
        summary: "Set the store's business details (the whole set)",
        description: `${businessDescription} The 사업자등록번호 check digit is verified; phone and e-mail formats are checked (400 VALIDATION_FAILED with every bad field).`,
        tags,
      },
      { auth: 'owner' },
      { body: BusinessDetailsBody, response: { 200: BusinessDetailsResult } },
    ),
    async (req) => ({ businessDetails: await svc.updateBusinessDetails(deps, req.owner!.storeId, req.body), liveReady: true }),
  );

  app.post(
    '/admin/v1/api-keys',
    op(
      { operationId: 'createApiKey', summary: 'Create an API key (the secret is shown once)', tags: ['API keys'] },
      { auth: 'owner' },
      { body: CreateApiKeyBody, response: { 201: ApiKeyWithSecret } },
    ),
    async (req, reply) => {
      reply.code(201);
      return keys.createApiKey(deps, req.owner!.storeId, req.body);
    },
  );

  app.get(
    '/admin/v1/api-keys',
    op({ operationId: 'listApiKeys', summary: 'List API keys, newest first', tags: ['API keys'] }, { auth: 'owner' }, { querystring: ListApiKeysQuery, response: { 200: ApiKeyPage } }),
    async (req) => keys.listApiKeys(deps, req.owner!.storeId, { mode: req.query.mode, ...pageParams(req.query) }),
  );

  app.post(
    '/admin/v1/api-keys/:id/rotate',
    op(
      {
        operationId: 'rotateApiKey',
        summary: 'Rotate an API key',
        description: 'Creates a new key with the same settings. The old key keeps working for `graceHours` (default 24) and its answers carry `Service-Key-Deprecated`.',
        tags: ['API keys'],
      },
      { auth: 'owner', errors: ['API_KEY_NOT_FOUND', 'API_KEY_NOT_ACTIVE'] },
      { params: IdParams, body: RotateApiKeyBody, response: { 200: RotateApiKeyResult } },
    ),
    async (req) => keys.rotateApiKey(deps, req.owner!.storeId, req.params.id, req.body?.graceHours),
  );

  app.post(
    '/admin/v1/api-keys/:id/revoke',
    op(
      { operationId: 'revokeApiKey', summary: 'Revoke an API key immediately', tags: ['API keys'] },
      { auth: 'owner', errors: ['API_KEY_NOT_FOUND'] },
      { params: IdParams, response: { 200: ApiKeySchema } },
    ),
    async (req) => keys.revokeApiKey(deps, req.owner!.storeId, req.params.id),
  );
};

