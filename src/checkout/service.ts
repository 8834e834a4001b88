import type { AppDeps } from '../deps';
import { ApiError, validationError } from '../platform/errors';
import { newId } from '../platform/ids';
import { productInRange } from '../platform/http/auth';
import type { Mode } from '../platform/tables';
import { checkoutConfigured, clientKeyOf, providerFor } from '../payments';
import { findProduct } from '../catalog/repo';
import { isSoldOut, priceFor, saleWindowState } from '../catalog/model';
import { findCheckoutSetup, findStoreSession, insertSession, insertSessionClaimingKey, insertSessionStoringAnswer } from './repo';
import { JSON_UTF8, type AnswerSlot, type ClaimInWrite } from '../platform/http/idempotency';
import type { SessionRow } from './model';
import { CATALOG_CHANGED, STORE_CHANGED, storeCache } from '../platform/changes';
import type { ProductRow } from '../catalog/model';
import { checkMetadata, hostAllowed, parseReturnUrl, sessionView, SESSION_TTL_MS } from './model';
import type { CheckoutSessionView, CreateCheckoutSessionInput } from './schemas';
import { MESSAGES } from '../platform/messages';

export { completePayment } from './complete';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'> & Partial<Pick<AppDeps, 'database'>>;

/**
 * Reads of session creation kept for PRODUCT_CACHE_MS: products without a stock limit (their sale state changes only
 * by a seller's write, which empties the cache in every process at once; a product with a stock limit is always read
 * fresh, so SOLD_OUT is never late) and the mode's checkout settings (emptied by every settings write).
 */
function cachedProduct(deps: Deps, storeId: string, mode: Mode, productId: string) {
  const cache = deps.database ? storeCache<ProductRow>(deps.database, 'checkout-products', deps.config.productCacheMs, CATALOG_CHANGED) : null;
  const key = `${storeId}|${mode}|${productId}`;
  const hit = cache?.get(key);
  if (hit) return Promise.resolve(hit);
  return findProduct(deps.db, storeId, productId, mode).then((p) => {
    if (p && p.stock === null) cache?.set(key, p);
    return p;
  });
}
function cachedSetup(deps: Deps, storeId: string, mode: Mode) {
  const cache = deps.database ? storeCache<Awaited<ReturnType<typeof findCheckoutSetup>>>(deps.database, 'checkout-setup', deps.config.productCacheMs, STORE_CHANGED) : null;
  const key = `${storeId}|${mode}`;
  const hit = cache?.get(key);
  if (hit) return Promise.resolve(hit);
  return findCheckoutSetup(deps.db, storeId, mode).then((s) => {
    cache?.set(key, s);
    return s;
  });
}
export interface KeyScope {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

/**
 * The order in which POST /v1/checkout/sessions checks a request; the first failing check answers. Kept here as data
 * so the operation's description and the code cannot drift apart.
 */
export const CREATE_SESSION_CHECKS: Array<[string, string]> = [
  ['VALIDATION_FAILED', 'the body\'s shape (unknown fields, wrong types)'],
  ['METADATA_INVALID', '`metadata` is not a flat string map within the limits'],
  ['CHECKOUT_URL_INVALID', '`successUrl`, then `cancelUrl`, is not an absolute http(s) URL'],
  ['PRODUCT_NOT_FOUND', 'no such product in the key\'s store and mode, or outside the key\'s product range'],
  ['VALIDATION_FAILED', '`planId`/`interval` do not fit the product (both required for subscriptions, refused for one-time products, unknown plan, interval not offered)'],
  ['PRODUCT_ARCHIVED', 'the product is archived'],
  ['NOT_STARTED', 'the sale window has not opened'],
  ['ENDED', 'the sale window has closed'],
  ['SOLD_OUT', 'no stock left (units held by payments in progress count as sold)'],
  ['RETURN_URL_NOT_ALLOWED', 'a return URL\'s host is not on the mode\'s allow-list (the host itself or a subdomain)'],
  ['PUBLIC_CONTACT_VERIFICATION_REQUIRED', 'live mode only: the store\'s public contact is not verified by the service operator (test mode never asks for it)'],
  ['CHECKOUT_NOT_CONFIGURED', 'the mode has no usable payment provider (test: simulator; live: Toss client and secret keys); in live mode also the store\'s business details are not set (`details.reason` = `business_details_missing`; PUT /admin/v1/store/business-details)'],
];

function checkUrl(field: 'successUrl' | 'cancelUrl', raw: string | undefined): URL | null {
  if (raw === undefined) return null;
  const u = parseReturnUrl(raw);
  if (!u) throw new ApiError('CHECKOUT_URL_INVALID', { details: { field } });
  return u;
}

/**
 * Creates the session; returns the view and its JSON text, which is what the route sends. The Idempotency-Key is
 * handled in the same statement as the session: `claimed` (the request's key, claimed before) gets the answer
 * stored; `claim` (a key not claimed yet) is claimed with the answer already in it, and if the key turns out to be
 * taken nothing is written and null is returned (the route then replays or refuses).
 */
export async function createSession(
  deps: Deps,
  auth: KeyScope,
  input: CreateCheckoutSessionInput,
  slot: { claim?: ClaimInWrite; claimed?: AnswerSlot } = {},
): Promise<{ view: CheckoutSessionView; body: string } | null> {
  const { db, clock, config } = deps;
  const now = clock.now();

  const metadata = checkMetadata(input.metadata);
  if (input.customerEmailLocked && !input.customer?.email) throw validationError([{ field: 'customer.email', message: MESSAGES.validation.required }]);
  const successUrl = checkUrl('successUrl', input.successUrl);
  const cancelUrl = checkUrl('cancelUrl', input.cancelUrl);

  const product = await cachedProduct(deps, auth.storeId, auth.mode, input.productId);
  if (!product || !productInRange(auth, product.id)) throw new ApiError('PRODUCT_NOT_FOUND');
  const price = priceFor(product, input.planId, input.interval);
  if (!price.ok) throw validationError([{ field: price.field, message: price.message }]);
  if (product.status === 'archived') throw new ApiError('PRODUCT_ARCHIVED');
  const window = saleWindowState(product, now);
  if (window === 'not_started') throw new ApiError('NOT_STARTED');
  if (window === 'ended') throw new ApiError('ENDED');
  if (isSoldOut(product)) throw new ApiError('SOLD_OUT');

  const setup = await cachedSetup(deps, auth.storeId, auth.mode);
  for (const [field, u] of [['successUrl', successUrl], ['cancelUrl', cancelUrl]] as const) {
    if (u && !hostAllowed(u, setup.return_url_domains)) throw new ApiError('RETURN_URL_NOT_ALLOWED', { details: { field, host: u.host } });
  }
  // The operator's check of who the seller is guards buyers' real money; test mode moves none, so it never asks.
  if (auth.mode === 'live' && !setup.public_contact_verified) throw new ApiError('PUBLIC_CONTACT_VERIFICATION_REQUIRED');
  const provider = providerFor(deps, setup);
  // A gateway's own window opens in the browser with what the registry says it needs (Toss: the client key as well as the secret key).
  const presence = {
    mode: setup.mode,
    paymentProvider: setup.payment_provider,
    tossClientKey: clientKeyOf(setup, 'payments'),
    tossSecretKeySet: !!setup.toss_secret_key_sealed,
    portoneStoreId: setup.portone_store_id,
    portoneApiSecretSet: !!setup.portone_api_secret_sealed,
  };
  if (!provider || (provider.paymentEntry.kind === 'gateway_window' && !checkoutConfigured(presence))) {
    throw new ApiError('CHECKOUT_NOT_CONFIGURED', { internal: `store ${auth.storeId} ${auth.mode}: provider ${setup.payment_provider ?? 'none'}` });
  }
  // A live payment page must name the seller (전자상거래법 제10조·제13조): no live session before the details are set.
  if (auth.mode === 'live' && !setup.business_details_set) {
    throw new ApiError('CHECKOUT_NOT_CONFIGURED', {
      message: MESSAGES.checkout.liveNeedsBusinessDetails,
      details: { reason: 'business_details_missing' },
      internal: `store ${auth.storeId}: business details not set`,
    });
  }

  const row: SessionRow = {
    id: newId('cs', clock),
    store_id: auth.storeId,
    mode: auth.mode,
    product_id: product.id,
    plan_id: input.planId ?? null,
    billing_interval: input.interval ?? null,
    amount: price.amount,
    trial_days: price.plan?.trialDays ?? null,
    customer_name: input.customer?.name ?? null,
    customer_email: input.customer?.email ?? null,
    customer_email_locked: input.customerEmailLocked === true,
    customer_phone: input.customer?.phone ?? null,
    metadata,
    locale: input.locale ?? 'ko',
    locale_fixed: input.locale !== undefined,
    success_url: input.successUrl ?? null,
    cancel_url: input.cancelUrl ?? null,
    status: 'open',
    order_id: null,
    pending_order_id: newId('ord', clock),
    attempt_locked_until: null,
    expires_at: new Date(now.getTime() + SESSION_TTL_MS),
    completed_at: null,
    created_at: now,
    attempt: null,
    payment: null,
  };
  const view = sessionView(row, now, config.publicBaseUrl);
  const body = JSON.stringify(view);
  if (slot.claim) {
    const claimed = await insertSessionClaimingKey(db, row, slot.claim, body);
    return claimed ? { view, body } : null;
  }
  const claimed = slot.claimed;
  if (claimed) {
    // One statement: the session and the idempotent answer that describes it are written together, or neither is.
    await insertSessionStoringAnswer(db, row, claimed, { status: 200, body, contentType: JSON_UTF8 });
  } else {
    await insertSession(db, row);
  }
  return { view, body };
}

/** Sessions of other stores or modes, or of products outside the key's range, answer CHECKOUT_SESSION_NOT_FOUND. */
export async function getSession(deps: Deps, auth: KeyScope, id: string): Promise<CheckoutSessionView> {
  const row = await findStoreSession(deps.db, auth.storeId, auth.mode, id);
  if (!row || !productInRange(auth, row.product_id)) throw new ApiError('CHECKOUT_SESSION_NOT_FOUND');
  return sessionView(row, deps.clock.now(), deps.config.publicBaseUrl);
}
