/**
 * What Toss says about one KST day: every transaction under each MID of the mode (the ledger the run compares with our
 * books) and the settlement records, read page after page, with their totals per payout. Read outside transactions.
 */
import type { AppDeps } from '../deps';
import { billingSetProviderFor, credentialSetsOf, providerFor, providerTraits } from '../payments';
import type { GatewaySettlement, GatewayTransaction, PaymentProvider } from '../payments/provider';
import { addDays, kstStartOf } from '../platform/calendar';
import { MESSAGES } from '../platform/messages';
import type { Mode, TossKeyPair } from '../platform/tables';
import { getModeSettings } from '../stores/service';

type Deps = Pick<AppDeps, 'db' | 'clock' | 'config'>;

/** A runaway cursor (a gateway repeating a page) stops here rather than looping forever. */
const MAX_PAGES = 10_000;

/** One Toss settlement record of the day (GET /v1/settlements), under the MID it was read from. */
export interface SettlementRecord extends GatewaySettlement {
  keyPair: TossKeyPair;
}

/** Sums of settlement records: the sales, what Toss kept (fee = supply amount + VAT) and what it pays out. */
export interface SettlementTotals {
  count: number;
  amount: number;
  fee: number;
  feeSupplyAmount: number;
  feeVat: number;
  payOutAmount: number;
}

/**
 * What Toss settles for the day compared (by 정산 매출일): its records, their totals, and the same grouped by 정산 지급일
 * (each group is one payout line on the seller's bank statement per MID). `unavailable` when Toss refused or did not
 * answer the settlements query; null for a run that has not read them.
 */
export interface SettlementsReport {
  status: 'read' | 'unavailable';
  failure: string | null;
  totals: SettlementTotals;
  payouts: Array<SettlementTotals & { paidOutDate: string; keyPair: TossKeyPair }>;
  records: SettlementRecord[];
}

/** The instants of a KST day, both inclusive (the gateway's range is inclusive to the millisecond). */
export function dayRange(day: string): { from: Date; to: Date } {
  return { from: kstStartOf(day), to: new Date(kstStartOf(addDays(day, 1)).getTime() - 1) };
}

/** One gateway's ledger of the day: its name (our orders taken through it are the ones compared with it) and transactions. */
export interface Ledger {
  provider: PaymentProvider['name'];
  transactions: GatewayTransaction[];
}
export type DayResult = { ok: true; ledgers: Ledger[] } | DayFailure;
type DayFailure = { ok: false; code: string; message: string };

/**
 * Every transaction of the day at each gateway that has a say in it: the mode's current one, and every one our orders
 * of the day were paid or refunded through (`rails`: a store that switched from Toss to PortOne still has Toss's
 * payments and refunds, known only in Toss's ledger, each read with the credentials the mode still holds for it).
 * Under each, the mode's first key pair and, when it holds one, the 자동결제 MID's pair too (issue 32; each MID has its
 * own ledger at Toss), merged in time order.
 */
export async function gatewayDay(deps: Deps, storeId: string, mode: Mode, day: string, rails: PaymentProvider['name'][] = []): Promise<DayResult> {
  const settings = await getModeSettings(deps.db, storeId, mode);
  const current = settings.raw.payment_provider;
  const names = [...new Set([...(current ? [current] : []), ...rails])];
  if (names.length === 0) return { ok: false, code: 'NOT_CONFIGURED', message: MESSAGES.reconciliation.providerMissing };
  const ledgers: Ledger[] = [];
  for (const name of names) {
    // Through the provider interface: Toss's or PortOne's ledger, or in test mode the simulator's (what this process approved and canceled).
    const raw = { ...settings.raw, payment_provider: name };
    const provider = providerFor(deps, raw);
    // A rail the mode left without its keys: the day cannot be checked against it, and the run says so.
    if (!provider) return { ok: false, code: 'NOT_CONFIGURED', message: name === current ? MESSAGES.reconciliation.providerMissing : MESSAGES.reconciliation.railMissing(providerTraits(name).label.ko) };
    const billing = billingSetProviderFor(deps, raw);
    const transactions: GatewayTransaction[] = [];
    for (const p of billing ? [provider, billing] : [provider]) {
      const one = await ledgerDay(deps, p, day);
      if (!one.ok) return one;
      transactions.push(...one.transactions);
    }
    transactions.sort((a, b) => a.transactionAt.getTime() - b.transactionAt.getTime());
    ledgers.push({ provider: provider.name, transactions });
  }
  return { ok: true, ledgers };
}

/** One MID's transactions of the day, page after page (`startingAfter` = the last key of the page before). */
async function ledgerDay(deps: Deps, provider: PaymentProvider, day: string): Promise<{ ok: true; transactions: GatewayTransaction[] } | DayFailure> {
  const { from, to } = dayRange(day);
  const transactions: GatewayTransaction[] = [];
  let startingAfter: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await provider.listTransactions({ startDate: from, endDate: to, startingAfter, limit: deps.config.reconciliationPageSize });
    if (r.status === 'failed') return { ok: false, code: r.code, message: MESSAGES.reconciliation.gatewayFailed(r.code, r.message) };
    if (r.status === 'unknown') return { ok: false, code: 'GATEWAY_UNAVAILABLE', message: MESSAGES.reconciliation.gatewayUnknown(r.message) };
    transactions.push(...r.value.transactions);
    if (!r.value.nextStartingAfter) break;
    startingAfter = r.value.nextStartingAfter;
  }
  return { ok: true, transactions };
}

type SettlementsResult = { ok: true; records: SettlementRecord[] } | { ok: false; message: string };

/**
 * Toss's settlement records of the day (by soldDate) under each MID of the mode, page after page until a short page.
 * Read after the transactions, outside any transaction; a refusal or silence makes them `unavailable`, never the run.
 */
export async function settlementsDay(deps: Deps, storeId: string, mode: Mode, day: string): Promise<SettlementsResult> {
  const settings = await getModeSettings(deps.db, storeId, mode);
  const pairs: TossKeyPair[] = credentialSetsOf(settings.raw);
  const records: SettlementRecord[] = [];
  const size = deps.config.reconciliationPageSize;
  for (const keyPair of pairs) {
    const provider = providerFor(deps, settings.raw, keyPair);
    if (!provider) return { ok: false, message: MESSAGES.reconciliation.providerMissing };
    for (let page = 1; page <= MAX_PAGES; page++) {
      const r = await provider.listSettlements({ startDate: day, endDate: day, dateType: 'soldDate', page, size });
      if (r.status === 'failed') return { ok: false, message: MESSAGES.reconciliation.gatewayFailed(r.code, r.message) };
      if (r.status === 'unknown') return { ok: false, message: MESSAGES.reconciliation.gatewayUnknown(r.message) };
      records.push(...r.value.map((s) => ({ ...s, keyPair })));
      if (r.value.length < size) break;
    }
  }
  return { ok: true, records };
}

/** Totals of records, and the same per payout day and MID (what each bank-statement line should show). */
export function settlementTotals(records: SettlementRecord[]): Pick<SettlementsReport, 'totals' | 'payouts'> {
  const zero = (): SettlementTotals => ({ count: 0, amount: 0, fee: 0, feeSupplyAmount: 0, feeVat: 0, payOutAmount: 0 });
  const add = (t: SettlementTotals, r: SettlementRecord) => {
    t.count++;
    t.amount += r.amount;
    t.fee += r.fee;
    t.feeSupplyAmount += r.feeSupplyAmount;
    t.feeVat += r.feeVat;
    t.payOutAmount += r.payOutAmount;
  };
  const totals = zero();
  const byPayout = new Map<string, SettlementTotals & { paidOutDate: string; keyPair: TossKeyPair }>();
  for (const r of records) {
    add(totals, r);
    const k = `${r.paidOutDate} ${r.keyPair}`;
    if (!byPayout.has(k)) byPayout.set(k, { paidOutDate: r.paidOutDate, keyPair: r.keyPair, ...zero() });
    add(byPayout.get(k)!, r);
  }
  const payouts = [...byPayout.values()].sort((a, b) => a.paidOutDate.localeCompare(b.paidOutDate) || a.keyPair.localeCompare(b.keyPair));
  return { totals, payouts };
}
