/**
 * The store and its settings: creating it, its view with both modes' payment setup, the owner's changes, the
 * operator's verification mark, the owner token. API keys are in `api-keys.ts`, business details in `business-details.ts`.
 */
import { USD_RATE_MAX, USD_RATE_MIN } from '../payments/foreign';
import type { AppDeps } from '../deps';
import type { Db } from '../db';
import { STORE_CHANGED, storeChanged } from '../platform/changes';
import { ApiError, validationError } from '../platform/errors';
import { hasBidiControl, hasLineControl } from '../platform/text';
import { newId } from '../platform/ids';
import { randomBase62, sha256Hex, encryptSecret, decryptSecret } from '../platform/crypto';
import type { Mode, StoreModeSettingsTable } from '../platform/tables';
import type { Selectable } from 'kysely';
import type { StoreView } from './schemas';
import * as repo from './repo';
import type { StoreSettingsSection } from './settings-section';
import { checkTossKeys, tossWidgetKeyProblems } from './toss-keys';
import { checkPortOneSettings, type PortOneSettingsInput } from './portone-keys';
import { markTossKeysVerified } from './toss-state-repo';
import { MESSAGES } from '../platform/messages';
import { checkoutConfigured, providerTraits, type PaymentProviderName } from '../payments/registry';
import { portoneWebhookUrl, tossWebhookUrl } from '../gateway/url';
import { buyerPagePath } from '../buyers/model';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'> & Partial<Pick<AppDeps, 'database'>>;

export function newOwnerToken(): { token: string; hash: string } {
  const token = `own_${randomBase62(40)}`;
  return { token, hash: sha256Hex(token) };
}

function settingsView(s: Selectable<StoreModeSettingsTable>) {
  const configured = checkoutConfigured({
    mode: s.mode,
    paymentProvider: s.payment_provider,
    tossClientKey: s.toss_client_key,
    tossSecretKeySet: !!s.toss_secret_key_sealed,
    portoneStoreId: s.portone_store_id,
    portoneApiSecretSet: !!s.portone_api_secret_sealed,
  });
  return {
    mode: s.mode,
    returnUrlDomains: s.return_url_domains,
    paymentProvider: s.payment_provider,
    tossClientKey: s.toss_client_key,
    tossSecretKeySet: !!s.toss_secret_key_sealed,
    tossBillingClientKey: s.toss_billing_client_key,
    tossBillingSecretKeySet: !!s.toss_billing_secret_key_sealed,
    checkoutConfigured: configured,
    foreignMethods: s.foreign_methods ?? [],
    usdKrwRate: s.usd_krw_rate ?? null,
    portoneStoreId: s.portone_store_id,
    portoneApiSecretSet: !!s.portone_api_secret_sealed,
    portoneWebhookSecretSet: !!s.portone_webhook_secret_sealed,
    portoneChannelKeys: s.portone_channel_keys ?? {},
  };
}

/**
 * The store with both modes' settings; `deps.config.publicBaseUrl` makes each mode's Toss webhook URL. The settings other
 * modules keep (the buyer mails) are not here: the console's routes add them (`StoreSettingsSection`).
 */
export async function getStoreView(deps: Pick<AppDeps, 'db' | 'config'>, storeId: string): Promise<StoreView> {
  const { db } = deps;
  const store = await repo.findStore(db, storeId);
  const settings = await repo.listModeSettings(db, storeId);
  const by = (m: Mode) => ({ ...settingsView(settings.find((s) => s.mode === m)!), tossWebhookUrl: tossWebhookUrl(deps.config.publicBaseUrl, storeId, m), portoneWebhookUrl: portoneWebhookUrl(deps.config.publicBaseUrl, storeId, m), buyerPageUrl: `${deps.config.publicBaseUrl}${buyerPagePath(storeId, m)}` });
  return {
    id: store.id,
    name: store.name,
    publicContactVerified: store.public_contact_verified,
    createdAt: store.created_at.toISOString(),
    updatedAt: store.updated_at.toISOString(),
    settings: { live: by('live'), test: by('test') },
    allowRepeatTrials: store.allow_repeat_trials,
    cashReceiptMandatory: store.cash_receipt_mandatory,
  };
}

/** Per-mode settings that gate checkout; used by the checkout and portal modules. */
export async function getModeSettings(db: Db, storeId: string, mode: Mode) {
  const s = await repo.findModeSettings(db, storeId, mode);
  return { ...settingsView(s), raw: s };
}

export function revealTossSecret(masterKey: Buffer, sealed: string | null): string | null {
  return sealed ? decryptSecret(masterKey, sealed).toString('utf8') : null;
}

/** The store's name is one line shown on pages, receipts and mails: no control character (CR/LF, tab) or bidi control. */
export function assertStoreName(name: string): void {
  if (hasLineControl(name)) throw validationError([{ field: 'name', message: MESSAGES.stores.nameHasLineControl }]);
  if (hasBidiControl(name)) throw validationError([{ field: 'name', message: MESSAGES.stores.nameHasBidiControl }]);
}

export async function createStore(deps: Deps, input: { name: string; publicContactVerified?: boolean }): Promise<{ store: StoreView; ownerToken: string }> {
  assertStoreName(input.name);
  const { db, clock } = deps;
  const now = clock.now();
  const id = newId('st', clock);
  const owner = newOwnerToken();
  await db.transaction().execute(async (trx) => {
    await repo.insertStore(trx, { id, name: input.name, ownerTokenHash: owner.hash, publicContactVerified: input.publicContactVerified ?? false, now });
    await repo.insertModeSettings(trx, [
      { store_id: id, mode: 'test', return_url_domains: [], payment_provider: 'simulator', toss_client_key: null, toss_secret_key_sealed: null, toss_billing_client_key: null, toss_billing_secret_key_sealed: null, updated_at: now },
      { store_id: id, mode: 'live', return_url_domains: [], payment_provider: null, toss_client_key: null, toss_secret_key_sealed: null, toss_billing_client_key: null, toss_billing_secret_key_sealed: null, updated_at: now },
    ]);
  });
  return { store: await getStoreView(deps, id), ownerToken: owner.token };
}

/**
 * The owner's own settings, and the fields of the settings `sections` other modules keep (the buyer mails), which each
 * section checks before anything is written and writes after the store's row. Public-contact verification is the
 * operator's act (`setPublicContactVerified`), not the store's.
 */
export async function updateStore(
  deps: Deps,
  storeId: string,
  input: { name?: string; publicContactVerified?: boolean; allowRepeatTrials?: boolean; cashReceiptMandatory?: boolean } & Record<string, unknown>,
  sections: StoreSettingsSection[] = [],
): Promise<StoreView> {
  if (input.publicContactVerified !== undefined) {
    throw new ApiError('ADMIN_FORBIDDEN', { message: MESSAGES.stores.publicContactOperatorOnly });
  }
  const patch: { updated_at: Date; name?: string; allow_repeat_trials?: boolean; cash_receipt_mandatory?: boolean } = { updated_at: deps.clock.now() };
  if (input.allowRepeatTrials !== undefined) patch.allow_repeat_trials = input.allowRepeatTrials;
  if (input.cashReceiptMandatory !== undefined) patch.cash_receipt_mandatory = input.cashReceiptMandatory;
  // Checked before anything is written: a refused address leaves the name and the switches as they were.
  for (const section of sections) await section.check(deps, storeId, input);
  if (input.name !== undefined) {
    assertStoreName(input.name);
    patch.name = input.name;
  }
  await repo.updateStoreRow(deps.db, storeId, patch);
  for (const section of sections) await section.write(deps, storeId, input, patch.updated_at);
  await storeChanged(deps.database, deps.db, STORE_CHANGED, storeId);
  return getStoreView(deps, storeId);
}

async function storeExists(db: Db, storeId: string): Promise<void> {
  const row = await repo.findStoreId(db, storeId);
  if (!row) throw new ApiError('NOT_FOUND');
}

/** Operator (ADMIN_TOKEN or the CLI): marks a store's public contact as verified, or takes the mark back. */
export async function setPublicContactVerified(deps: Deps, storeId: string, verified: boolean): Promise<StoreView> {
  const updated = await repo.setStorePublicContactVerified(deps.db, storeId, verified, deps.clock.now());
  if (updated === 0) throw new ApiError('NOT_FOUND');
  await storeChanged(deps.database, deps.db, STORE_CHANGED, storeId);
  return getStoreView(deps, storeId);
}

/**
 * Issues a new owner token; the previous one stops working at once (no grace period: a console token is one person's,
 * and a leaked one must die now). With `currentHash` (the owner rotating their own token) only that token is replaced,
 * so of two concurrent rotations with one token a single one wins; the other answers ADMIN_UNAUTHORIZED.
 */
export async function rotateOwnerToken(deps: Deps, storeId: string, currentHash?: string): Promise<{ storeId: string; ownerToken: string }> {
  const owner = newOwnerToken();
  const updated = await repo.replaceOwnerTokenHash(deps.db, storeId, owner.hash, deps.clock.now(), currentHash);
  if (updated === 0) {
    if (currentHash !== undefined) throw new ApiError('ADMIN_UNAUTHORIZED');
    throw new ApiError('NOT_FOUND');
  }
  return { storeId, ownerToken: owner.token };
}

/** Operator: the store's owner token stops working at once and the store has none until the operator rotates one in. */
export async function revokeOwnerToken(deps: Deps, storeId: string): Promise<{ storeId: string; ownerTokenActive: false }> {
  await storeExists(deps.db, storeId);
  await repo.clearOwnerTokenHash(deps.db, storeId, deps.clock.now());
  return { storeId, ownerTokenActive: false };
}

/** Return-URL allow-list entries are host names with an optional port (the same rule the console's schema states). */
export function assertReturnUrlDomains(list: string[]): void {
  const bad = list.map((d, i) => ({ d, i })).filter(({ d }) => d.length < 1 || d.length > 253 || !/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/.test(d));
  if (list.length > 50) throw validationError([{ field: 'returnUrlDomains', message: MESSAGES.stores.tooManyReturnUrlDomains }]);
  if (bad.length) throw validationError(bad.map(({ i }) => ({ field: `returnUrlDomains.${i}`, message: MESSAGES.stores.returnUrlDomainInvalid })));
}

export async function updateModeSettings(
  deps: Deps,
  storeId: string,
  mode: Mode,
  input: {
    returnUrlDomains?: string[];
    paymentProvider?: PaymentProviderName | null;
    tossClientKey?: string | null;
    tossSecretKey?: string | null;
    tossBillingClientKey?: string | null;
    tossBillingSecretKey?: string | null;
    foreignMethods?: Array<'foreign_card' | 'paypal'>;
    usdKrwRate?: number | null;
  } & PortOneSettingsInput,
): Promise<StoreView> {
  if (input.returnUrlDomains !== undefined) assertReturnUrlDomains(input.returnUrlDomains);
  // PayPal is charged in USD at the store's fixed rate: it cannot be offered without one (src/payments/foreign.ts).
  if (input.usdKrwRate != null && (!Number.isSafeInteger(input.usdKrwRate) || input.usdKrwRate < USD_RATE_MIN || input.usdKrwRate > USD_RATE_MAX)) {
    throw validationError([{ field: 'usdKrwRate', message: MESSAGES.stores.usdRateInvalid }]);
  }
  if (input.foreignMethods?.includes('paypal') || input.usdKrwRate === null) {
    const current = await repo.findModeSettings(deps.db, storeId, mode);
    const methods = input.foreignMethods ?? current.foreign_methods ?? [];
    const rate = input.usdKrwRate !== undefined ? input.usdKrwRate : current.usd_krw_rate;
    if (methods.includes('paypal') && rate == null) throw validationError([{ field: 'usdKrwRate', message: MESSAGES.stores.paypalNeedsRate }]);
  }
  if (input.paymentProvider && providerTraits(input.paymentProvider).testOnly && mode === 'live') {
    throw validationError([{ field: 'paymentProvider', message: MESSAGES.stores.simulatorNotInLive }]);
  }
  const widgetKeys = tossWidgetKeyProblems(input);
  if (widgetKeys.length) throw validationError(widgetKeys);
  // Keys as pasted often carry a stray space or line break; Toss would refuse them for it.
  const trimmed = (k: string | null | undefined) => (typeof k === 'string' ? k.trim() || k : k);
  const tossClientKey = trimmed(input.tossClientKey);
  const tossSecretKey = trimmed(input.tossSecretKey);
  const tossBillingClientKey = trimmed(input.tossBillingClientKey);
  const tossBillingSecretKey = trimmed(input.tossBillingSecretKey);
  // Checked (and a new secret key verified with Toss) before anything is written: a refused key is never stored. The
  // 자동결제 pair is checked exactly like the first (its own MID, its own keys: issue 32).
  const keysVerifiedAt = await checkTossKeys(deps, storeId, mode, { tossClientKey, tossSecretKey });
  const billingKeysVerifiedAt = await checkTossKeys(deps, storeId, mode, { tossClientKey: tossBillingClientKey, tossSecretKey: tossBillingSecretKey }, 'billing');
  const portone = {
    portoneStoreId: trimmed(input.portoneStoreId),
    portoneApiSecret: trimmed(input.portoneApiSecret),
    portoneWebhookSecret: trimmed(input.portoneWebhookSecret),
    portoneChannelKeys: input.portoneChannelKeys === undefined ? undefined : Object.fromEntries(Object.entries(input.portoneChannelKeys).map(([m, k]) => [m, k.trim()]).filter(([, k]) => k !== '')),
  };
  const portoneVerifiedAt = await checkPortOneSettings(deps, storeId, mode, portone);
  // Removing the 자동결제 secret would leave the subscriptions registered under it unchargeable (a billing key works
  // only under the MID that issued it): refused while any of them is not ended.
  if (tossBillingSecretKey === null) {
    const n = await repo.countSubscriptionsOnBillingPair(deps.db, storeId, mode);
    if (n > 0) throw validationError([{ field: 'tossBillingSecretKey', message: MESSAGES.stores.tossBillingKeysInUse(n) }]);
  }
  const patch: Parameters<typeof repo.updateModeSettingsRow>[3] = { updated_at: deps.clock.now() };
  if (input.returnUrlDomains !== undefined) patch.return_url_domains = [...new Set(input.returnUrlDomains.map((d) => d.toLowerCase()))];
  if (input.paymentProvider !== undefined) patch.payment_provider = input.paymentProvider;
  if (input.foreignMethods !== undefined) patch.foreign_methods = [...new Set(input.foreignMethods)];
  if (input.usdKrwRate !== undefined) patch.usd_krw_rate = input.usdKrwRate;
  if (tossClientKey !== undefined) patch.toss_client_key = tossClientKey;
  if (tossSecretKey !== undefined) patch.toss_secret_key_sealed = tossSecretKey === null ? null : encryptSecret(deps.config.masterKey, tossSecretKey);
  if (tossBillingClientKey !== undefined) patch.toss_billing_client_key = tossBillingClientKey;
  if (portone.portoneStoreId !== undefined) patch.portone_store_id = portone.portoneStoreId;
  if (portone.portoneApiSecret !== undefined) patch.portone_api_secret_sealed = portone.portoneApiSecret === null ? null : encryptSecret(deps.config.masterKey, portone.portoneApiSecret);
  if (portone.portoneWebhookSecret !== undefined) patch.portone_webhook_secret_sealed = portone.portoneWebhookSecret === null ? null : encryptSecret(deps.config.masterKey, portone.portoneWebhookSecret);
  if (portone.portoneChannelKeys !== undefined) patch.portone_channel_keys = portone.portoneChannelKeys;
  if (tossBillingSecretKey !== undefined) {
    patch.toss_billing_secret_key_sealed = tossBillingSecretKey === null ? null : encryptSecret(deps.config.masterKey, tossBillingSecretKey);
  }
  await deps.db.transaction().execute(async (trx) => {
    await repo.updateModeSettingsRow(trx, storeId, mode, patch);
    if (keysVerifiedAt) await markTossKeysVerified(trx, storeId, mode, keysVerifiedAt);
    // The go-live checklist's "the gateway accepted the mode's credentials" mark, for PortOne's secret as for Toss's keys.
    if (portoneVerifiedAt) await markTossKeysVerified(trx, storeId, mode, portoneVerifiedAt);
    if (billingKeysVerifiedAt) await markTossKeysVerified(trx, storeId, mode, billingKeysVerifiedAt, 'billing');
  });
  await storeChanged(deps.database, deps.db, STORE_CHANGED, storeId);
  return getStoreView(deps, storeId);
}

export { getBusinessDetails, getBusinessDetailsForOrder, updateBusinessDetails } from './business-details';
