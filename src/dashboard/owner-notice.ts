import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps';
import type { Mode } from '../platform/tables';
import { queueSellerNotice, type SellerNotice } from '../mail/seller-notice';
import { activeOwners } from './sign-in/second-factor-repo';
import { ctxOf, originOf } from './frame';

/**
 * Tells every active owner of the store, by mail, that a payout-relevant setting changed (the Toss keys or provider,
 * the business details). Live-mode and store-wide changes are mailed as live mail (sent through SMTP_URL);
 * test-mode key changes stay in the test mailbox, since test keys move no money.
 */
export async function notifyOwners(deps: AppDeps, req: FastifyRequest, change: SellerNotice['change'], settingsMode: Mode | null, fields: string[]): Promise<void> {
  if (fields.length === 0) return;
  const ctx = ctxOf(req);
  const owners = await activeOwners(deps.db, ctx.member.storeId);
  await queueSellerNotice(deps.db, deps.clock, {
    storeId: ctx.member.storeId,
    mode: settingsMode === 'test' ? 'test' : 'live',
    recipients: owners.map((o) => o.email),
    notice: { change, settingsMode, fields, actor: { name: ctx.member.name, email: ctx.member.email }, ip: originOf(req).ip, at: deps.clock.now().toISOString() },
  });
}
