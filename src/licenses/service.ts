import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { ApiKeyAuth } from '../platform/http/auth';
import type { Page } from '../platform/http/schemas';
import type { Mode } from '../platform/tables';
import { createLicense } from './issuance';
import { hashLicenseKey } from './keys';
import * as repo from './repo';
import type { AdminLicenseView, LicenseView } from './schemas';
import { adminLicenseView, licenseView } from './views';
import { MESSAGES } from '../platform/messages';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

// ---------- server reads (API key, licenses:read) ----------

/** The key's store and mode; a product-restricted key sees only its products' licenses. */
const keyFilter = (auth: ApiKeyAuth): repo.LicenseFilter => ({ storeId: auth.storeId, mode: auth.mode, productIds: auth.productIds });

export async function listLicenses(deps: Deps, auth: ApiKeyAuth, q: PageParams & { productId?: string; orderId?: string }): Promise<Page<LicenseView>> {
  const f = { ...keyFilter(auth), productId: q.productId, orderId: q.orderId };
  const now = deps.clock.now();
  let activations: repo.ActivationRow[] = [];
  return listPage(
    q,
    () => repo.countLicenses(deps.db, f),
    async (offset, limit) => {
      const rows = await repo.listLicenses(deps.db, f, offset, limit);
      activations = await repo.activationsFor(deps.db, rows.map((r) => r.id));
      return rows;
    },
    (r) => licenseView(r, activations, deps.config.masterKey, now),
  );
}

export async function getLicense(deps: Deps, auth: ApiKeyAuth, id: string): Promise<LicenseView> {
  const row = await repo.findLicense(deps.db, keyFilter(auth), id);
  if (!row) throw new ApiError('LICENSE_NOT_FOUND');
  return licenseView(row, await repo.activationsFor(deps.db, [row.id]), deps.config.masterKey, deps.clock.now());
}

// ---------- seller console (owner token) ----------

export async function adminListLicenses(
  deps: Deps,
  storeId: string,
  q: PageParams & { mode?: Mode; productId?: string; orderId?: string; key?: string; buyerEmail?: string },
): Promise<Page<AdminLicenseView>> {
  // Keys are stored only as a keyed hash (and sealed), so a search by key hashes what was typed, trimmed.
  const key = q.key?.trim();
  const f: repo.LicenseFilter = { storeId, mode: q.mode, productId: q.productId, orderId: q.orderId, keyHash: key ? hashLicenseKey(deps.config.masterKey, key) : undefined, buyerEmail: q.buyerEmail?.trim() || undefined };
  const now = deps.clock.now();
  let activations: repo.ActivationRow[] = [];
  let attempts: repo.IssueAttemptRow[] = [];
  return listPage(
    q,
    () => repo.countLicenses(deps.db, f),
    async (offset, limit) => {
      const rows = await repo.listLicenses(deps.db, f, offset, limit);
      const ids = rows.map((r) => r.id);
      activations = await repo.activationsFor(deps.db, ids);
      attempts = await repo.issueAttemptsFor(deps.db, ids);
      return rows;
    },
    (r) => adminLicenseView(r, activations, attempts, deps.config.masterKey, now),
  );
}

export async function adminGetLicense(deps: Deps, storeId: string, id: string): Promise<AdminLicenseView> {
  const row = await repo.findLicense(deps.db, { storeId }, id);
  if (!row) throw new ApiError('LICENSE_NOT_FOUND');
  const activations = await repo.activationsFor(deps.db, [id]);
  const attempts = await repo.issueAttemptsFor(deps.db, [id]);
  return adminLicenseView(row, activations, attempts, deps.config.masterKey, deps.clock.now());
}

/** A revoked license is final: it answers `revoked` from now on. Revoking a pending one also stops its license.issue requests. */
export async function revokeLicense(deps: Deps, storeId: string, id: string, reason: string | null): Promise<AdminLicenseView> {
  await deps.db.transaction().execute(async (trx) => {
    const lic = await repo.lockLicense(trx, storeId, id);
    if (!lic) throw new ApiError('LICENSE_NOT_FOUND');
    if (lic.status === 'revoked') throw new ApiError('LICENSE_NOT_ACTIVE', { message: MESSAGES.licenses.alreadyRevoked });
    const now = deps.clock.now();
    await repo.markLicenseRevoked(trx, id, reason, now);
  });
  return adminGetLicense(deps, storeId, id);
}

/**
 * Re-issue (key rotation): a new license with a new key for the same order, product, buyer, expiry and limit,
 * `rotatedFrom` = the old id; the old license is revoked in the same transaction. Activations are not carried
 * over: the old key stops working, so apps activate again with the new one. A seller-issued license is re-issued
 * the same way it was first issued: a pending license and a new license.issue request.
 */
export async function reissueLicense(deps: Deps, storeId: string, id: string, reason: string | null): Promise<AdminLicenseView> {
  const newId = await deps.db.transaction().execute(async (trx) => {
    const old = await repo.lockLicense(trx, storeId, id);
    if (!old) throw new ApiError('LICENSE_NOT_FOUND');
    if (old.status === 'revoked') throw new ApiError('LICENSE_NOT_ACTIVE', { message: MESSAGES.licenses.revokedCannotReissue });
    const now = deps.clock.now();
    await repo.markLicenseRevoked(trx, id, reason ?? 'reissued', now);
    return createLicense(trx, deps, {
      storeId,
      mode: old.mode,
      productId: old.product_id,
      orderId: old.order_id,
      subscriptionId: old.subscription_id,
      buyerEmail: old.buyer_email,
      buyerName: old.buyer_name,
      maxActivations: old.max_activations,
      expiresAt: old.expires_at,
      issuer: old.issuer,
      rotatedFrom: old.id,
    });
  });
  return adminGetLicense(deps, storeId, newId);
}
