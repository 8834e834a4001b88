import { isoOrNull } from '../platform/clock';
import { revealKey } from './keys';
import { licenseStatus } from './model';
import type { ActivationRow, IssueAttemptRow, LicenseWithProduct } from './repo';
import type { ActivationView, AdminLicenseView, LicenseView } from './schemas';

export function activationView(a: ActivationRow): ActivationView {
  return {
    id: a.id,
    label: a.label,
    activatedAt: a.activated_at.toISOString(),
    lastVerifiedAt: isoOrNull(a.last_verified_at),
    deactivatedAt: isoOrNull(a.deactivated_at),
  };
}

/** The contract's License. `activations` are all of the license's activations; the count is those still live. */
export function licenseView(l: LicenseWithProduct, activations: ActivationRow[], masterKey: Buffer, now: Date): LicenseView {
  const own = activations.filter((a) => a.license_id === l.id);
  return {
    id: l.id,
    mode: l.mode,
    key: revealKey(masterKey, l.key_sealed),
    productId: l.product_id,
    productName: l.product_name,
    orderId: l.order_id,
    orderItemId: l.order_item_id,
    buyerEmail: l.buyer_email,
    buyerName: l.buyer_name,
    status: licenseStatus(l, now),
    maxActivations: l.max_activations,
    activationCount: own.filter((a) => a.deactivated_at === null).length,
    issuedAt: l.issued_at.toISOString(),
    expiresAt: isoOrNull(l.expires_at),
    revokedAt: isoOrNull(l.revoked_at),
    revokeReason: l.revoke_reason,
    rotatedFrom: l.rotated_from,
    activations: own.map(activationView),
  };
}

export function adminLicenseView(l: LicenseWithProduct, activations: ActivationRow[], attempts: IssueAttemptRow[], masterKey: Buffer, now: Date): AdminLicenseView {
  return {
    ...licenseView(l, activations, masterKey, now),
    issuer: l.issuer,
    issueAttempts: attempts
      .filter((a) => a.license_id === l.id)
      .map((a) => ({
        attemptedAt: a.attempted_at.toISOString(),
        outcome: a.outcome,
        endpointId: a.endpoint_id,
        httpStatus: a.http_status,
        error: a.error,
        durationMs: a.duration_ms,
      })),
  };
}
