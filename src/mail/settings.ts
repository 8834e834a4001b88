import type { Db } from '../db';
import { MAIL_KINDS, type MailKind } from './kinds';
import * as repo from './repo';

export type BuyerMails = Record<MailKind, boolean>;

/** The store's per-kind switches: every kind on unless turned off. */
export async function getBuyerMails(db: Db, storeId: string): Promise<BuyerMails> {
  const off = new Set(await repo.disabledKinds(db, storeId));
  return Object.fromEntries(MAIL_KINDS.map((k) => [k, !off.has(k)])) as BuyerMails;
}

export async function updateBuyerMails(db: Db, storeId: string, patch: Record<string, unknown>, now: Date): Promise<void> {
  const current = await getBuyerMails(db, storeId);
  for (const k of MAIL_KINDS) { const v = patch[k]; if (typeof v === 'boolean') current[k] = v; }
  await repo.setDisabledKinds(db, storeId, MAIL_KINDS.filter((k) => !current[k]), now);
}
