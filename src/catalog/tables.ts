import type { Json, Mode, Timestamp } from '../platform/tables';
import type { ColumnType } from 'kysely';

export interface PlanRecord {
  id: string;
  name: string;
  monthlyPrice: number | null;
  yearlyPrice: number | null;
  /** Free trial in days before the first charge (1–365); absent or null: none. */
  trialDays?: number | null;
}

export interface ProductsTable {
  id: string;
  store_id: string;
  mode: Mode;
  name: string;
  description: string | null;
  type: 'one_time' | 'subscription';
  status: 'active' | 'archived';
  price: number | null;
  plans: Json<PlanRecord[]>;
  refund_days: number;
  sale_starts_at: Date | null;
  sale_ends_at: Date | null;
  stock: number | null;
  sold_count: ColumnType<number, number | undefined, any>;
  license_mode: 'none' | 'service' | 'seller';
  license_max_activations: number | null;
  license_validity_days: number | null;
  trial_offered: boolean;
  usage_restriction_marked: boolean;
  clawback_disclosed: boolean;
  penalty_rate: number;
  created_at: Timestamp;
  updated_at: Date;
}

export interface CouponsTable {
  id: string;
  store_id: string;
  mode: Mode;
  code: string;
  name: string;
  discount_type: 'fixed' | 'percent';
  discount_value: number;
  valid_from: Date | null;
  valid_until: Date | null;
  max_redemptions: number | null;
  redeemed_count: ColumnType<number, number | undefined, any>;
  product_ids: Json<string[] | null>;
  status: 'active' | 'archived';
  created_at: Timestamp;
  updated_at: Date;
}

export interface CatalogTables {
  products: ProductsTable;
  coupons: CouponsTable;
}
