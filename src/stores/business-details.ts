import type { AppDeps, } from '../deps';
import type { Db } from '../db';
import { STORE_CHANGED, storeChanged } from '../platform/changes';
import { ApiError, validationError } from '../platform/errors';
import { findBusinessDetails, findBusinessDetailsByOrder, upsertBusinessDetails, type BusinessDetailsRow } from './business-repo';
import { findStoreId } from './repo';
import type { BusinessDetailsInput, BusinessDetailsView } from './schemas';
import { MESSAGES } from '../platform/messages';
import { bidiMessage, hasBidiControl, isValidEmail } from '../platform/text';

type Deps = Pick<AppDeps, 'db' | 'clock'> & Partial<Pick<AppDeps, 'database'>>;

/**
 * The seller's business details (전자상거래법 제10조·제13조): who sells, shown in the footer of every hosted page
 * (payment page, receipt, portal, status pages) and required before a live checkout session can be created
 * (CHECKOUT_NOT_CONFIGURED otherwise). Test mode works without them.
 */

// ---------- pure rules ----------

const BRN_WEIGHTS = [1, 3, 7, 1, 3, 7, 1, 3, 5];

/**
 * 사업자등록번호: 10 digits (hyphens and spaces allowed) whose last digit is the National Tax Service check digit:
 * sum of the first nine digits times 1,3,7,1,3,7,1,3,5, plus the tens of (9th digit × 5); check = (10 − sum mod 10) mod 10.
 * Returns the number written the usual way (`123-45-67890`), or null.
 */
export function normalizeBusinessNumber(raw: string): string | null {
  const d = raw.replace(/[\s-]/g, '');
  if (!/^\d{10}$/.test(d)) return null;
  const n = [...d].map(Number);
  let sum = BRN_WEIGHTS.reduce((acc, w, i) => acc + n[i] * w, 0);
  sum += Math.floor((n[8] * 5) / 10);
  if ((10 - (sum % 10)) % 10 !== n[9]) return null;
  return `${d.slice(0, 3)}-${d.slice(3, 5)}-${d.slice(5)}`;
}

/**
 * A Korean phone number a buyer can call: a landline or mobile number (0 + 8–10 digits, e.g. 02-123-4567,
 * 010-1234-5678, 070-…) or a 대표번호 (15xx/16xx/18xx-xxxx). Kept as the seller typed it; only checked here.
 */
export function isSupportPhone(raw: string): boolean {
  if (!/^[0-9\s\-().+]+$/.test(raw)) return false;
  let d = raw.replace(/[\s\-().]/g, '');
  if (d.startsWith('+82')) d = `0${d.slice(3).replace(/^0/, '')}`;
  return /^0\d{8,10}$/.test(d) || /^1[568]\d{6}$/.test(d);
}


/** Checks and normalises the console's input; VALIDATION_FAILED lists every bad field with a Korean message. */
export function checkBusinessDetails(input: BusinessDetailsInput): Omit<BusinessDetailsRow, 'store_id' | 'updated_at' | 'sample'> {
  const fields: Array<{ field: string; message: string }> = [];
  const text = (field: keyof BusinessDetailsInput, label: string, max: number): string => {
    const v = String(input[field] ?? '').trim();
    if (!v) fields.push({ field, message: MESSAGES.businessDetails.required(label) });
    else if (v.length > max) fields.push({ field, message: MESSAGES.businessDetails.tooLong(label, max) });
    else if (hasBidiControl(v)) fields.push({ field, message: bidiMessage(label) });
    return v;
  };
  const companyName = text('companyName', MESSAGES.businessDetails.labels.companyName, 100);
  const representative = text('representative', MESSAGES.businessDetails.labels.representative, 50);
  const mailOrderNumber = text('mailOrderNumber', MESSAGES.businessDetails.labels.mailOrderNumber, 60);
  const address = text('address', MESSAGES.businessDetails.labels.address, 200);
  const business = normalizeBusinessNumber(String(input.businessNumber ?? ''));
  if (!business) fields.push({ field: 'businessNumber', message: MESSAGES.businessDetails.businessNumberInvalid });
  const phone = input.supportPhone?.trim() || null;
  const email = input.supportEmail?.trim() || null;
  if (phone && !isSupportPhone(phone)) fields.push({ field: 'supportPhone', message: MESSAGES.businessDetails.supportPhoneInvalid });
  if (email && !isValidEmail(email)) fields.push({ field: 'supportEmail', message: MESSAGES.businessDetails.supportEmailInvalid });
  if (!phone && !email) fields.push({ field: 'supportPhone', message: MESSAGES.businessDetails.supportContactRequired });
  if (fields.length) throw validationError(fields);
  return {
    company_name: companyName,
    representative,
    business_number: business!,
    mail_order_number: mailOrderNumber,
    address,
    support_phone: phone,
    support_email: email,
  };
}

export function businessDetailsView(r: BusinessDetailsRow): BusinessDetailsView {
  return {
    companyName: r.company_name,
    representative: r.representative,
    businessNumber: r.business_number,
    mailOrderNumber: r.mail_order_number,
    address: r.address,
    supportPhone: r.support_phone,
    supportEmail: r.support_email,
    sample: r.sample,
    updatedAt: r.updated_at.toISOString(),
  };
}

// ---------- use cases ----------

/** The store's business details, or null while none are set. Reused by the hosted pages and the dashboard. */
export async function getBusinessDetails(db: Db, storeId: string): Promise<BusinessDetailsView | null> {
  const row = await findBusinessDetails(db, storeId);
  return row ? businessDetailsView(row) : null;
}

/** The business details of the store selling an order, or null. */
export async function getBusinessDetailsForOrder(db: Db, orderId: string): Promise<BusinessDetailsView | null> {
  const row = await findBusinessDetailsByOrder(db, orderId);
  return row ? businessDetailsView(row) : null;
}

/**
 * Sets (replaces) the store's business details. `sample` is only for the demo store (src/demo.ts): made-up details
 * that the pages label as samples. Empties the checkout-setup caches of every process (STORE_CHANGED), so a live
 * checkout is allowed at once.
 */
export async function updateBusinessDetails(deps: Deps, storeId: string, input: BusinessDetailsInput, opts: { sample?: boolean } = {}): Promise<BusinessDetailsView> {
  const checked = checkBusinessDetails(input);
  const store = await findStoreId(deps.db, storeId);
  if (!store) throw new ApiError('NOT_FOUND');
  const row = await upsertBusinessDetails(deps.db, { store_id: storeId, ...checked, sample: opts.sample ?? false, updated_at: deps.clock.now() });
  await storeChanged(deps.database, deps.db, STORE_CHANGED, storeId);
  return businessDetailsView(row);
}
