import type { AppDeps } from '../deps';
import { jsonb } from '../db';
import { ApiError, validationError } from '../platform/errors';
import { newId } from '../platform/ids';
import { productInRange } from '../platform/http/auth';
import type { Mode } from '../platform/tables';
import { providerFor } from '../payments';
import { findProduct } from '../catalog/repo';
import { isSoldOut, priceFor, saleWindowState } from '../catalog/model';
import { findCheckoutSetup } from './repo';
import { checkMetadata, hostAllowed, parseReturnUrl, sessionView, SESSION_TTL_MS } from './model';
import type { CheckoutSessionView, CreateCheckoutSessionInput } from './schemas';

export { completePayment } from './complete';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;
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
  ['PUBLIC_CONTACT_VERIFICATION_REQUIRED', 'the store\'s public contact is not verified'],
  ['CHECKOUT_NOT_CONFIGURED', 'the mode has no usable payment provider (test: simulator; live: Toss client and secret keys)'],
];

function checkUrl(field: 'successUrl' | 'cancelUrl', raw: string | undefined): URL | null {
  if (raw === undefined) return null;
  const u = parseReturnUrl(raw);
  if (!u) throw new ApiError('CHECKOUT_URL_INVALID', { details: { field } });
  return u;
}

export async function createSession(deps: Deps, auth: KeyScope, input: CreateCheckoutSessionInput): Promise<CheckoutSessionView> {
  const { db, clock, config } = deps;
  const now = clock.now();

  const metadata = checkMetadata(input.metadata);
  const successUrl = checkUrl('successUrl', input.successUrl);
  const cancelUrl = checkUrl('cancelUrl', input.cancelUrl);

  const product = await findProduct(db, auth.storeId, input.productId, auth.mode);
  if (!product || !productInRange(auth, product.id)) throw new ApiError('PRODUCT_NOT_FOUND');
  const price = priceFor(product, input.planId, input.interval);
  if (!price.ok) throw validationError([{ field: price.field, message: price.message }]);
  if (product.status === 'archived') throw new ApiError('PRODUCT_ARCHIVED');
  const window = saleWindowState(product, now);
  if (window === 'not_started') throw new ApiError('NOT_STARTED');
  if (window === 'ended') throw new ApiError('ENDED');
  if (isSoldOut(product)) throw new ApiError('SOLD_OUT');

  const setup = await findCheckoutSetup(db, auth.storeId, auth.mode);
  for (const [field, u] of [['successUrl', successUrl], ['cancelUrl', cancelUrl]] as const) {
    if (u && !hostAllowed(u, setup.return_url_domains)) throw new ApiError('RETURN_URL_NOT_ALLOWED', { details: { field, host: u.host } });
  }
  if (!setup.public_contact_verified) throw new ApiError('PUBLIC_CONTACT_VERIFICATION_REQUIRED');
  const provider = providerFor(deps, setup);
  // Live payments open Toss's window in the browser, which needs the client key as well as the secret key.
  if (!provider || (provider.name === 'toss' && !setup.toss_client_key)) {
    throw new ApiError('CHECKOUT_NOT_CONFIGURED', { internal: `store ${auth.storeId} ${auth.mode}: provider ${setup.payment_provider ?? 'none'}` });
  }

  const row = await db
    .insertInto('checkout_sessions')
    .values({
      id: newId('cs', clock),
      store_id: auth.storeId,
      mode: auth.mode,
      product_id: product.id,
      plan_id: input.planId ?? null,
      billing_interval: input.interval ?? null,
      amount: price.amount,
      customer_name: input.customer?.name ?? null,
      customer_email: input.customer?.email ?? null,
      customer_phone: input.customer?.phone ?? null,
      metadata: jsonb(metadata),
      success_url: input.successUrl ?? null,
      cancel_url: input.cancelUrl ?? null,
      status: 'open',
      order_id: null,
      pending_order_id: newId('ord', clock),
      attempt_locked_until: null,
      expires_at: new Date(now.getTime() + SESSION_TTL_MS),
      completed_at: null,
      created_at: now,
      attempt: jsonb(null),
      payment: jsonb(null),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return sessionView(row, now, config.publicBaseUrl);
}

/** Sessions of other stores or modes, or of products outside the key's range, answer CHECKOUT_SESSION_NOT_FOUND. */
export async function getSession(deps: Deps, auth: KeyScope, id: string): Promise<CheckoutSessionView> {
  const row = await deps.db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('store_id', '=', auth.storeId)
    .where('mode', '=', auth.mode)
    .executeTakeFirst();
  if (!row || !productInRange(auth, row.product_id)) throw new ApiError('CHECKOUT_SESSION_NOT_FOUND');
  return sessionView(row, deps.clock.now(), deps.config.publicBaseUrl);
}
