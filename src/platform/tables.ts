import type { ColumnType } from 'kysely';
import type { PaymentProviderName } from '../payments/provider';

export type Mode = 'live' | 'test';
/** jsonb columns: read as the parsed value, written through `jsonb(value)`. */
export type Json<T> = ColumnType<T, any, any>;
export type Timestamp = ColumnType<Date, Date, Date>;

export interface StoresTable {
  id: string;
  name: string;
  /** null: the owner token was revoked and no new one issued yet. */
  owner_token_hash: string | null;
  public_contact_verified: boolean;
  /** Whether a buyer may take a product's free trial more than once (migration 061); default false. */
  allow_repeat_trials: ColumnType<boolean, boolean | undefined, boolean>;
  /** 현금영수증 의무발행업종 (migration 072). */
  cash_receipt_mandatory: ColumnType<boolean, boolean | undefined, boolean>;
  /** How a buyer's 세금계산서 request is issued: by hand or at payment (migration 104, src/tax/invoices/). */
  tax_invoice_issue: ColumnType<'manual' | 'auto', 'manual' | 'auto' | undefined, 'manual' | 'auto'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * Which of a mode's two Toss key pairs a payment or billing key belongs to (migration 068): `payments`, the first pair
 * (one-time payments, and everything when no billing pair is set), or `billing`, the 자동결제 MID's pair.
 */
export type TossKeyPair = 'payments' | 'billing';

export interface StoreModeSettingsTable {
  store_id: string;
  mode: Mode;
  return_url_domains: Json<string[]>;
  payment_provider: PaymentProviderName | null;
  toss_client_key: string | null;
  toss_secret_key_sealed: string | null;
  /** The 자동결제 (billing) MID's pair, when Toss contracted billing under its own MID (migration 068). */
  toss_billing_client_key: ColumnType<string | null, string | null | undefined, string | null>;
  toss_billing_secret_key_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  /** Buyers abroad (migration 112): which of 'foreign_card' / 'paypal' the payment page offers, and PayPal's won per US$1. */
  foreign_methods: ColumnType<Array<'foreign_card' | 'paypal'>, Array<'foreign_card' | 'paypal'> | undefined, Array<'foreign_card' | 'paypal'>>;
  usd_krw_rate: ColumnType<number | null, number | null | undefined, number | null>;
  /** PortOne V2 (migration 118): store id, sealed V2 API and webhook secrets, channel key per payment method (public). */
  portone_store_id: ColumnType<string | null, string | null | undefined, string | null>;
  portone_api_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  portone_webhook_secret_sealed: ColumnType<string | null, string | null | undefined, string | null>;
  portone_channel_keys: Json<Record<string, string>>;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  store_id: string;
  mode: Mode;
  name: string;
  key_hash: string;
  key_hint: string;
  scopes: Json<string[]>;
  ip_allowlist: Json<string[] | null>;
  product_ids: Json<string[] | null>;
  created_at: Timestamp;
  last_used_at: Date | null;
  expires_at: Date | null;
  rotated_to: string | null;
  revoked_at: Date | null;
}

export interface IdempotencyKeysTable {
  store_id: string;
  mode: string;
  key: string;
  fingerprint: string;
  state: 'processing' | 'done';
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
  created_at: Timestamp;
  locked_until: Date;
  expires_at: Date;
}

export interface EventsTable {
  id: string;
  store_id: string;
  mode: Mode;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
  dispatched_at: Date | null;
}

export interface JobsTable {
  id: string;
  name: string;
  payload: Json<Record<string, unknown>>;
  status: 'pending' | 'running' | 'done' | 'failed';
  run_at: Date;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  locked_by: string | null;
  locked_until: Date | null;
  last_error: string | null;
  dedupe_key: string | null;
  /** Migration 089: jobs of one lane take turns with other lanes when claimed; null = a lane of its own. */
  lane: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Date;
}

/** See migration 016_store_toss_state.sql. */
export interface StoreTossStateTable {
  store_id: string;
  mode: Mode;
  keys_verified_at: Date | null;
  /** When Toss last accepted the billing pair's secret key (migration 068). */
  billing_keys_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  first_webhook_at: Date | null;
  last_webhook_at: Date | null;
  /** The Toss-lookup budget's current one-minute window and the lookups spent in it (migration 060). */
  lookup_window_start: ColumnType<Date | null, Date | null | undefined, Date | null>;
  lookups_used: ColumnType<number, number | undefined, number>;
}

/** See migration 035_service_public_address.sql: one row, the address the running server last started with. */
export interface ServicePublicAddressTable {
  id: ColumnType<number, number | undefined, never>;
  url: string;
  configured: boolean;
  recorded_at: Date;
}

/**
 * Rows per store and mode of the tables whose lists answer with an exact total, kept by a trigger on each (migration
 * 136): the count is the sum of `n` over the slots. Read through src/db/row-counts.ts.
 */
export interface RowCountsTable {
  table_name: string;
  store_id: string;
  mode: Mode;
  /** '' for every row; else the value of the column the table's lists filter on (events' type, others' status). */
  part: string;
  slot: number;
  n: ColumnType<number, number | undefined, number>;
}

export interface PlatformTables {
  row_counts: RowCountsTable;
  service_public_address: ServicePublicAddressTable;
  stores: StoresTable;
  store_mode_settings: StoreModeSettingsTable;
  store_toss_state: StoreTossStateTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  jobs: JobsTable;
}
