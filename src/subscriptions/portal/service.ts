import type { AppDeps } from '../../deps';
import { jsonb } from '../../db';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { randomBase62, safeEqualString, sha256Hex } from '../../platform/crypto';
import { findCheckoutSetup } from '../../checkout/repo';
import { hostAllowed, parseReturnUrl } from '../../checkout/model';
import type { Selectable } from 'kysely';
import type { PortalSessionsTable } from '../cancel/tables';
import type { PortalSessionInput, PortalSessionView } from '../cancel/schemas';
import type { Scope } from '../cancel/service';
import * as repo from '../repo';
import * as portalRepo from './repo';
import { MESSAGES } from '../../platform/messages';
import { isValidEmail } from '../../platform/text';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;
export type PortalSessionRow = Selectable<PortalSessionsTable>;

/** How long a portal link opens the portal (and how long its forms are accepted). */
export const PORTAL_TTL_MS = 60 * 60_000;

/** The order in which POST /v1/portal-sessions checks a request; the first failing check answers. */
export const PORTAL_CHECKS: Array<[string, string]> = [
  ['VALIDATION_FAILED', 'the body\'s shape (unknown fields, non-string values, over-long strings)'],
  ['BAD_REQUEST', 'neither `buyerEmail` nor `subscriptionId` is given, or `buyerEmail` is not an email address'],
  ['CHECKOUT_URL_INVALID', '`returnUrl` is not an absolute http(s) URL (or carries user:password)'],
  ['SUBSCRIPTION_NOT_FOUND', '`subscriptionId` names no subscription in the key\'s store, mode and product range, or it belongs to another buyer than `buyerEmail`'],
  ['NOT_FOUND', 'only `buyerEmail` is given and that buyer has no active or past-due subscription in the key\'s range'],
  ['RETURN_URL_NOT_ALLOWED', '`returnUrl`\'s host is not on the mode\'s allow-list (the host itself or a subdomain), the same list checkout uses'],
];

export function portalUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/portal/${token}`;
}

export async function createPortalSession(deps: Deps, scope: Scope, input: PortalSessionInput): Promise<PortalSessionView> {
  const { db, clock, config } = deps;
  const email = input.buyerEmail?.trim();
  if (!email && !input.subscriptionId) {
    throw new ApiError('BAD_REQUEST', { message: MESSAGES.subscriptions.portalIdentityRequired, details: { reason: 'buyerEmail_or_subscriptionId_required' } });
  }
  if (email !== undefined && !isValidEmail(email)) throw new ApiError('BAD_REQUEST', { message: MESSAGES.subscriptions.buyerEmailInvalid, details: { field: 'buyerEmail' } });
  let returnUrl: URL | null = null;
  if (input.returnUrl !== undefined) {
    returnUrl = parseReturnUrl(input.returnUrl);
    if (!returnUrl) throw new ApiError('CHECKOUT_URL_INVALID', { details: { field: 'returnUrl' } });
  }

  let sub;
  if (input.subscriptionId) {
    sub = await repo.findSubscription(db, scope, input.subscriptionId);
    if (!sub || (email && sub.buyer_email.toLowerCase() !== email.toLowerCase())) throw new ApiError('SUBSCRIPTION_NOT_FOUND');
  } else {
    sub = await portalRepo.latestLiveSubscriptionOfBuyer(db, scope, email!);
    if (!sub) throw new ApiError('NOT_FOUND', { message: MESSAGES.subscriptions.noActiveSubscription });
  }

  if (returnUrl) {
    const setup = await findCheckoutSetup(db, scope.storeId, scope.mode);
    if (!hostAllowed(returnUrl, setup.return_url_domains)) throw new ApiError('RETURN_URL_NOT_ALLOWED', { details: { field: 'returnUrl', host: returnUrl.host } });
  }

  const now = clock.now();
  const token = randomBase62(40);
  const row = await portalRepo.insertPortalSession(db, {
    id: newId('ps', clock),
    store_id: scope.storeId,
    mode: scope.mode,
    buyer_email: sub.buyer_email,
    subscription_id: sub.id,
    product_ids: jsonb(scope.productIds),
    return_url: returnUrl ? input.returnUrl! : null,
    token_hash: sha256Hex(token),
    csrf_secret: randomBase62(32),
    expires_at: new Date(now.getTime() + PORTAL_TTL_MS),
    created_at: now,
  });
  return {
    id: row.id,
    mode: row.mode,
    subscriptionId: row.subscription_id,
    buyerEmail: row.buyer_email,
    returnUrl: row.return_url,
    url: portalUrl(config.publicBaseUrl, token),
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
  };
}

/** The open portal session a link's token names, or null (unknown, or past `expiresAt`). */
export async function openPortalSession(deps: Pick<AppDeps, 'db' | 'clock'>, token: string): Promise<PortalSessionRow | null> {
  if (!/^[A-Za-z0-9]{20,100}$/.test(token)) return null;
  const row = await portalRepo.findPortalSessionByTokenHash(deps.db, sha256Hex(token));
  if (!row || row.expires_at <= deps.clock.now()) return null;
  return row;
}

/** The form token check: every portal POST carries the session's CSRF secret (a value only the portal page holds). */
export function csrfOk(session: PortalSessionRow, sent: unknown): boolean {
  return typeof sent === 'string' && safeEqualString(sent, session.csrf_secret);
}
