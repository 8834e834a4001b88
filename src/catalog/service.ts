import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../deps';
import { ApiError, validationError, type FieldError } from '../platform/errors';
import { newId } from '../platform/ids';
import { listPage, type PageParams } from '../platform/http/pagination';
import type { Page } from '../platform/http/schemas';
import type { Mode } from '../platform/tables';
import { productInRange } from '../platform/http/auth';
import { CATALOG_CHANGED, storeCache, storeChanged } from '../platform/changes';
import type { PlanRecord } from './tables';
import { productView, type ProductRow } from './model';
import * as repo from './repo';
import type { CreateProductInput, ProductView, UpdateProductInput } from './schemas';
import { MESSAGES } from '../platform/messages';

type Deps = Pick<AppDeps, 'db' | 'clock'> & Partial<Pick<AppDeps, 'database' | 'config'>>;

/**
 * Product pages of the public API, kept for PRODUCT_CACHE_MS (2 s by default). A seller's create, edit or archive
 * empties the store's pages in every process at once; `soldCount` moves with payments and may lag by up to the time
 * limit (the payment itself takes stock atomically, so this never oversells).
 */
function productPages(deps: Deps) {
  return deps.database && deps.config ? storeCache<Page<ProductView>>(deps.database, 'product-pages', deps.config.productCacheMs, CATALOG_CHANGED) : null;
}
const catalogChanged = (deps: Deps, storeId: string) => storeChanged(deps.database, deps.db, CATALOG_CHANGED, storeId);
export interface KeyScope {
  storeId: string;
  mode: Mode;
  productIds: string[] | null;
}

// ---------- public API (API key) ----------

export async function listProducts(deps: Deps, auth: KeyScope, page: PageParams): Promise<Page<ProductView>> {
  const f = { mode: auth.mode, productIds: auth.productIds };
  const cache = productPages(deps);
  const key = `${auth.storeId}|${auth.mode}|${auth.productIds?.join(',') ?? '*'}|${page.page}|${page.limit}`;
  const hit = cache?.get(key);
  if (hit) return hit;
  const result = await listPage(
    page,
    () => repo.countProducts(deps.db, auth.storeId, f),
    (offset, limit) => repo.pageProducts(deps.db, auth.storeId, f, offset, limit),
    productView,
  );
  cache?.set(key, result);
  return result;
}

/** A product of the key's store and mode inside its product range; anything else is PRODUCT_NOT_FOUND. */
export async function getProductForKey(deps: Deps, auth: KeyScope, id: string): Promise<ProductRow> {
  const p = await repo.findProduct(deps.db, auth.storeId, id, auth.mode);
  if (!p || !productInRange(auth, p.id)) throw new ApiError('PRODUCT_NOT_FOUND');
  return p;
}

// ---------- seller console ----------

function parseTime(v: string | null | undefined): Date | null | undefined {
  return v === undefined ? undefined : v === null ? null : new Date(v);
}

function normalizePlans(plans: NonNullable<NonNullable<CreateProductInput['pricing']>['plans']>): PlanRecord[] {
  return plans.map((p) => ({
    id: p.id ?? `plan_${randomBytes(6).toString('hex')}`,
    name: p.name,
    monthlyPrice: p.monthlyPrice ?? null,
    yearlyPrice: p.yearlyPrice ?? null,
    trialDays: p.trialDays ?? null,
  }));
}

/** The rules a product's fields must satisfy together, checked on create and on the merged result of an update. */
function checkProduct(p: Pick<ProductRow, 'type' | 'price' | 'plans' | 'sale_starts_at' | 'sale_ends_at'>): void {
  const fields: FieldError[] = [];
  if (p.type === 'one_time') {
    if (p.price === null) fields.push({ field: 'pricing.price', message: MESSAGES.catalog.oneTimeNeedsPrice });
    if (p.plans.length) fields.push({ field: 'pricing.plans', message: MESSAGES.catalog.oneTimeNoPlans });
  } else {
    if (p.price !== null) fields.push({ field: 'pricing.price', message: MESSAGES.catalog.subscriptionPriceInPlans });
    if (!p.plans.length) fields.push({ field: 'pricing.plans', message: MESSAGES.catalog.subscriptionNeedsPlans });
    const seen = new Set<string>();
    p.plans.forEach((pl, i) => {
      if (pl.monthlyPrice === null && pl.yearlyPrice === null) fields.push({ field: `pricing.plans.${i}`, message: MESSAGES.catalog.planNeedsPrice });
      if (seen.has(pl.id)) fields.push({ field: `pricing.plans.${i}.id`, message: MESSAGES.catalog.duplicatePlanId });
      seen.add(pl.id);
    });
  }
  if (p.sale_starts_at && p.sale_ends_at && p.sale_starts_at >= p.sale_ends_at) {
    fields.push({ field: 'saleEndsAt', message: MESSAGES.catalog.saleEndsBeforeStart });
  }
  if (fields.length) throw validationError(fields);
}

export async function createProduct(deps: Deps, storeId: string, input: CreateProductInput): Promise<ProductView> {
  const now = deps.clock.now();
  const rp = input.refundPolicy ?? {};
  const row = {
    id: newId('prod', deps.clock),
    store_id: storeId,
    mode: input.mode,
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    status: 'active' as const,
    price: input.pricing?.price ?? null,
    plans: normalizePlans(input.pricing?.plans ?? []),
    refund_days: rp.refundDays ?? 7,
    sale_starts_at: parseTime(input.saleStartsAt) ?? null,
    sale_ends_at: parseTime(input.saleEndsAt) ?? null,
    stock: input.stock ?? null,
    license_mode: input.license?.mode ?? ('none' as const),
    license_max_activations: input.license?.maxActivations ?? null,
    license_validity_days: input.license?.validityDays ?? null,
    trial_offered: rp.trialOffered ?? false,
    usage_restriction_marked: rp.usageRestrictionMarked ?? false,
    clawback_disclosed: rp.clawbackDisclosed ?? false,
    penalty_rate: rp.penaltyRate ?? 10,
    created_at: now,
    updated_at: now,
  };
  checkProduct(row);
  const saved = await repo.insertProduct(deps.db, row);
  await catalogChanged(deps, storeId);
  return productView(saved);
}

export async function getProductForOwner(deps: Deps, storeId: string, id: string): Promise<ProductRow> {
  const p = await repo.findProduct(deps.db, storeId, id);
  if (!p) throw new ApiError('PRODUCT_NOT_FOUND');
  return p;
}

export async function updateProduct(deps: Deps, storeId: string, id: string, input: UpdateProductInput): Promise<ProductView> {
  const view = await deps.db.transaction().execute(async (trx) => {
    const cur = await repo.lockProduct(trx, storeId, id);
    if (!cur) throw new ApiError('PRODUCT_NOT_FOUND');
    const rp = input.refundPolicy ?? {};
    const next: ProductRow = {
      ...cur,
      name: input.name ?? cur.name,
      description: input.description !== undefined ? input.description : cur.description,
      price: input.pricing?.price !== undefined ? input.pricing.price : cur.price,
      plans: input.pricing?.plans !== undefined ? normalizePlans(input.pricing.plans) : cur.plans,
      refund_days: rp.refundDays ?? cur.refund_days,
      trial_offered: rp.trialOffered ?? cur.trial_offered,
      usage_restriction_marked: rp.usageRestrictionMarked ?? cur.usage_restriction_marked,
      clawback_disclosed: rp.clawbackDisclosed ?? cur.clawback_disclosed,
      penalty_rate: rp.penaltyRate ?? cur.penalty_rate,
      sale_starts_at: input.saleStartsAt !== undefined ? parseTime(input.saleStartsAt)! : cur.sale_starts_at,
      sale_ends_at: input.saleEndsAt !== undefined ? parseTime(input.saleEndsAt)! : cur.sale_ends_at,
      stock: input.stock !== undefined ? input.stock : cur.stock,
      license_mode: input.license?.mode ?? cur.license_mode,
      license_max_activations: input.license ? (input.license.maxActivations ?? null) : cur.license_max_activations,
      license_validity_days: input.license ? (input.license.validityDays ?? null) : cur.license_validity_days,
      status: input.status ?? cur.status,
      updated_at: deps.clock.now(),
    };
    checkProduct(next);
    const { id: _id, store_id: _s, mode: _m, type: _t, created_at: _c, sold_count: _sc, ...patch } = next;
    const saved = await repo.updateProductRow(trx, id, patch);
    return productView(saved);
  });
  await catalogChanged(deps, storeId);
  return view;
}

export async function archiveProduct(deps: Deps, storeId: string, id: string): Promise<ProductView> {
  const saved = await repo.archiveProductRow(deps.db, storeId, id, deps.clock.now());
  if (!saved) throw new ApiError('PRODUCT_NOT_FOUND');
  await catalogChanged(deps, storeId);
  return productView(saved);
}

export async function listProductsForOwner(deps: Deps, storeId: string, q: { mode?: Mode } & PageParams): Promise<Page<ProductView>> {
  const f = { mode: q.mode };
  return listPage(
    q,
    () => repo.countProducts(deps.db, storeId, f),
    (offset, limit) => repo.pageProducts(deps.db, storeId, f, offset, limit),
    productView,
  );
}
