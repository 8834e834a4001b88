// Kysely table types of the stores module that live outside the platform tables (composed into DB in src/db/types.ts).
import type { Timestamp } from '../platform/tables';

/** Migration 011: the seller's business details shown on every hosted page and required for live checkout. */
export interface StoreBusinessDetailsTable {
  store_id: string;
  company_name: string;
  representative: string;
  business_number: string;
  mail_order_number: string;
  address: string;
  support_phone: string | null;
  support_email: string | null;
  sample: boolean;
  updated_at: Timestamp;
}

export interface StoresTables {
  store_business_details: StoreBusinessDetailsTable;
}
