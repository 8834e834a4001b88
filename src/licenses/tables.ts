// Kysely table types of the licenses module (composed into DB in src/db/types.ts). See migration 004_licenses.sql.
import type { Mode, Timestamp } from '../platform/tables';

export type StoredLicenseStatus = 'active' | 'pending' | 'revoked';
export type LicenseIssuer = 'service' | 'seller';

export interface LicensesTable {
  id: string;
  store_id: string;
  mode: Mode;
  product_id: string;
  order_id: string;
  order_item_id: string | null;
  subscription_id: string | null;
  issuer: LicenseIssuer;
  key_hash: string | null;
  key_sealed: string | null;
  buyer_email: string;
  buyer_name: string;
  status: StoredLicenseStatus;
  max_activations: number | null;
  issued_at: Timestamp;
  expires_at: Date | null;
  revoked_at: Date | null;
  revoke_reason: string | null;
  rotated_from: string | null;
  issue_event_id: string | null;
  created_at: Timestamp;
  updated_at: Date;
}

export interface LicenseActivationsTable {
  id: string;
  license_id: string;
  label: string | null;
  activated_at: Timestamp;
  last_verified_at: Date | null;
  deactivated_at: Date | null;
}

export interface LicenseIssueAttemptsTable {
  id: string;
  license_id: string;
  endpoint_id: string | null;
  attempted_at: Timestamp;
  outcome: 'issued' | 'failed' | 'no_endpoint';
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

export interface SigningKeysTable {
  kid: string;
  generation: number;
  public_key: string;
  private_key_sealed: string;
  created_at: Timestamp;
  signs_from: Date;
}

export interface LicensesTables {
  licenses: LicensesTable;
  license_activations: LicenseActivationsTable;
  license_issue_attempts: LicenseIssueAttemptsTable;
  signing_keys: SigningKeysTable;
}
