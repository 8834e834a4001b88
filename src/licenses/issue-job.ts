import type { AppDeps } from '../deps';
import type { EventEnvelope } from '../platform/events';
import { newId } from '../platform/ids';
import { findEndpointsFor, sendSigned } from '../webhooks/outbound';
import { LICENSE_ISSUE_JOB } from './issuance';
import { keyColumns } from './keys';
import { parseSellerAnswer } from './model';
import * as repo from './repo';
import { applyIssuedKey, findLicenseWithPlan } from './issue-repo';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config' | 'log'>;

/** How long the seller's endpoint has to answer with a key. */
export const ISSUE_TIMEOUT_MS = 10_000;

/** The contract's license.issue request data. */
export interface LicenseIssueData extends Record<string, unknown> {
  mode: 'live' | 'test';
  licenseId: string;
  orderId: string;
  productId: string;
  planId: string | null;
  interval: 'monthly' | 'yearly' | null;
  buyer: { email: string; name: string };
  maxActivations: number | null;
  expiresAt: string | null;
}

/**
 * One attempt to get a seller-issued key (the `license.issue` job): POST the request, signed like a webhook, to
 * the store's oldest enabled endpoint subscribed to `license.issue`, and apply a well-formed answer. Every other
 * outcome (no endpoint, network error, timeout, non-2xx, a malformed answer, a key already used by another license
 * of the product) is recorded as an attempt and thrown, so the job retries on the webhook schedule and the license
 * stays `pending`. A license that is no longer pending (revoked meanwhile) ends the job quietly.
 */
export async function runLicenseIssue(deps: Deps, licenseId: string, opts: { timeoutMs?: number } = {}): Promise<void> {
  const { db, clock, config } = deps;
  const lic = await findLicenseWithPlan(db, licenseId);
  if (!lic || lic.status !== 'pending') return;

  const data: LicenseIssueData = {
    mode: lic.mode,
    licenseId: lic.id,
    orderId: lic.order_id,
    productId: lic.product_id,
    planId: lic.plan_id,
    interval: lic.billing_interval,
    buyer: { email: lic.buyer_email, name: lic.buyer_name },
    maxActivations: lic.max_activations,
    expiresAt: lic.expires_at ? lic.expires_at.toISOString() : null,
  };
  // Same id and createdAt on every retry: the seller de-duplicates on the id like any webhook.
  const envelope: EventEnvelope = { id: lic.issue_event_id ?? `evt_${lic.id}`, type: 'license.issue', mode: lic.mode, createdAt: lic.created_at.toISOString(), data };

  const record = (r: { outcome: 'issued' | 'failed' | 'no_endpoint'; endpointId?: string | null; httpStatus?: number | null; error?: string | null; durationMs?: number | null }) =>
    repo.insertIssueAttempt(db, {
      id: newId('lia', clock),
      license_id: lic.id,
      endpoint_id: r.endpointId ?? null,
      attempted_at: clock.now(),
      outcome: r.outcome,
      http_status: r.httpStatus ?? null,
      error: r.error ? r.error.slice(0, 1000) : null,
      duration_ms: r.durationMs ?? null,
    });

  const [endpoint] = await findEndpointsFor(db, config.masterKey, lic.store_id, lic.mode, 'license.issue', clock.now());
  if (!endpoint) {
    await record({ outcome: 'no_endpoint', error: 'no enabled webhook endpoint subscribed to license.issue' });
    throw new Error('license.issue: no endpoint subscribed');
  }

  const res = await sendSigned(deps, endpoint, envelope, { timeoutMs: opts.timeoutMs ?? ISSUE_TIMEOUT_MS });
  const base = { endpointId: endpoint.id, httpStatus: res.status, durationMs: res.durationMs };
  if (!res.ok) {
    await record({ ...base, outcome: 'failed', error: res.error ?? `HTTP ${res.status}` });
    throw new Error(`license.issue: ${res.error ?? `HTTP ${res.status}`}`);
  }
  const answer = parseSellerAnswer(res.body, { expiresAt: lic.expires_at, maxActivations: lic.max_activations });
  if (!answer.ok) {
    await record({ ...base, outcome: 'failed', error: `malformed answer: ${answer.error}` });
    throw new Error(`license.issue: malformed answer: ${answer.error}`);
  }

  const cols = keyColumns(config.masterKey, answer.key);
  const applied = await db.transaction().execute(async (trx) => {
    const current = await repo.lockLicense(trx, lic.store_id, lic.id);
    if (!current || current.status !== 'pending') return 'gone' as const;
    if (await repo.keyTaken(trx, cols.key_hash, lic.product_id)) return 'duplicate' as const;
    const now = clock.now();
    await applyIssuedKey(trx, lic.id, cols, answer, now);
    return 'issued' as const;
  });
  if (applied === 'duplicate') {
    await record({ ...base, outcome: 'failed', error: 'the key is already used by another license of this product' });
    throw new Error('license.issue: duplicate key');
  }
  if (applied === 'issued') await record({ ...base, outcome: 'issued' });
}

export function registerLicenseIssueJob(deps: Deps & Pick<AppDeps, 'worker'>, opts: { timeoutMs?: number } = {}): void {
  deps.worker.registerJob(LICENSE_ISSUE_JOB, async (payload) => {
    await runLicenseIssue(deps, String(payload.licenseId), opts);
  });
}
