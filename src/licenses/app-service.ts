import type { AppDeps } from '../deps';
import { ApiError } from '../platform/errors';
import { isoOrNull } from '../platform/clock';
import { clockOfSubscription } from '../subscriptions/clock';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import { licenseStatus, type AppStatus } from './model';
import * as repo from './repo';
import type { ActivationView } from './schemas';
import { activationView } from './views';
import { licenseVerifyCache } from './verify-cache';

type Deps = Pick<AppDeps, 'db' | 'clock'> & Partial<Pick<AppDeps, 'database' | 'config'>>;

/** The app answer before the nonce and signing time are added at signing. */
export interface AppOutcome {
  status: AppStatus;
  expiresAt: string | null;
  maxActivations: number | null;
  activationCount: number;
  mode: Mode;
  activation: ActivationView | null;
}

function outcome(l: repo.LicenseRow, status: AppStatus, count: number, activation: repo.ActivationRow | null | undefined): AppOutcome {
  return {
    status,
    expiresAt: isoOrNull(l.expires_at),
    maxActivations: l.max_activations,
    activationCount: count,
    mode: l.mode,
    activation: activation ? activationView(activation) : null,
  };
}

/**
 * A key the service does not know (for this product), or a seller-issued one (not verified here, see repo.findByKey). There is no license to take a mode from, so the mode is the
 * product's when the productId names one, else `test`: a live app asking about a live product still hears `live`.
 */
async function notFound(deps: Deps, productId: string): Promise<AppOutcome> {
  return notFoundAnswer(await notFoundMode(deps, productId));
}

const notFoundMode = async (deps: Deps, productId: string): Promise<Mode> => (await repo.productMode(deps.db, productId)) ?? 'test';

function notFoundAnswer(mode: Mode): AppOutcome {
  return { status: 'not_found', expiresAt: null, maxActivations: null, activationCount: 0, mode, activation: null };
}

/**
 * "Now" for a license: a test-mode subscription's license runs on that subscription's test clock (its activations
 * decide whether the period was used, its expiry is the period end in the subscription's time); every other license
 * on the service clock, without a query.
 */
async function licenseNow(deps: Deps, lic: Pick<repo.LicenseRow, 'mode' | 'subscription_id'>): Promise<Date> {
  if (lic.mode !== 'test' || !lic.subscription_id) return deps.clock.now();
  return (await clockOfSubscription(deps.db, deps.clock, lic.subscription_id)).now();
}

export interface KeyRef {
  keyHash: string;
  productId: string;
}

/**
 * Activate: only an active license gets an activation; any other status is answered as it is, without one. The
 * license row is locked for the count and the insert, so concurrent activations can never exceed maxActivations.
 */
export async function activate(deps: Deps, ref: KeyRef, label: string | null): Promise<AppOutcome> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const lic = await repo.findByKey(trx, ref.keyHash, ref.productId, { forUpdate: true });
    if (!lic) return null;
    const now = await licenseNow({ ...deps, db: trx }, lic);
    const status = licenseStatus(lic, now);
    const count = await repo.countActiveActivations(trx, lic.id);
    if (status !== 'active') return outcome(lic, status, count, null);
    if (lic.max_activations !== null && count >= lic.max_activations) {
      throw new ApiError('MAX_ACTIVATIONS_REACHED', { details: { maxActivations: lic.max_activations, activationCount: count } });
    }
    const activation = await repo.insertActivation(trx, {
      id: newId('act', deps.clock),
      license_id: lic.id,
      label,
      activated_at: now,
      last_verified_at: null,
      deactivated_at: null,
    });
    return outcome(lic, status, count + 1, activation);
  });
  return result ?? notFound(deps, ref.productId);
}

/**
 * Deactivate frees the activation's slot whatever the license's status (a buyer moving devices after a renewal
 * lapse still needs it). Deactivating again answers the activation as it is (idempotent); an activationId that is
 * not this license's answers `activation: null`.
 */
export async function deactivate(deps: Deps, ref: KeyRef, activationId: string): Promise<AppOutcome> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const lic = await repo.findByKey(trx, ref.keyHash, ref.productId, { forUpdate: true });
    if (!lic) return null;
    const now = await licenseNow({ ...deps, db: trx }, lic);
    const activation = (await repo.deactivateActivation(trx, lic.id, activationId, now)) ?? (await repo.findActivation(trx, lic.id, activationId));
    const count = await repo.countActiveActivations(trx, lic.id);
    return outcome(lic, licenseStatus(lic, now), count, activation);
  });
  return result ?? notFound(deps, ref.productId);
}

/**
 * Verify: the license's status now. With an activationId of this license, the activation comes back and, while it
 * is live, its lastVerifiedAt is set to now; a deactivated one comes back unchanged so the app learns it was
 * deactivated; an unknown one is `activation: null`.
 */
export async function verify(deps: Deps, ref: KeyRef, activationId: string | null): Promise<AppOutcome> {
  const read = () => repo.findByKeyWithCount(deps.db, ref.keyHash, ref.productId);
  // The license row (or the fact that there is none) may come from the verify cache (see verify-cache.ts); its
  // status is still decided here, now.
  let lic: repo.LicenseRow & { active_count: number };
  if (deps.database && deps.config && deps.config.licenseCacheMs > 0) {
    const found = await licenseVerifyCache(deps.database, deps.config.licenseCacheMs).lookup(ref.keyHash, ref.productId, read, () => notFoundMode(deps, ref.productId));
    if ('notFoundMode' in found) return notFoundAnswer(found.notFoundMode);
    lic = found.row;
  } else {
    const row = await read();
    if (!row) return notFound(deps, ref.productId);
    lic = row;
  }
  const now = await licenseNow(deps, lic);
  let activation: repo.ActivationRow | undefined;
  if (activationId) activation = (await repo.touchActivation(deps.db, lic.id, activationId, now)) ?? (await repo.findActivation(deps.db, lic.id, activationId));
  return outcome(lic, licenseStatus(lic, now), lic.active_count, activation ?? null);
}
