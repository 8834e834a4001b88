import { sql } from 'kysely';
import type { AppDeps } from '../deps';
import { jsonb } from '../db';
import { newId } from '../platform/ids';
import { html, kst, won } from '../pages/html';
import type { RenderedMail } from './render-input';
import * as repo from './repo';

/**
 * The store owners' reminder of a refund request's deadline: a buyer's portal cancel whose refund waits for the seller
 * is approved automatically at `auto_approve_at` (src/refunds/requests/model.ts cancelDecisionDeadline), a statutory
 * request likewise (제18조). A day before, every active owner is mailed once, so the seller decides knowingly rather
 * than by silence. Scanned every ten minutes on each request's own clock (a test-mode subscription's test clock), so a
 * moved test clock gets its reminder too; `seller_reminded_at` makes it once per request across workers and reruns.
 */
export const REFUND_REMINDER_KIND = 'seller_refund_reminder';
export const REFUND_REMINDER_LABEL = { ko: '환불 요청 결정 기한 알림 (소유자)', en: 'Refund request deadline (owners)' };
export const REMIND_BEFORE_MS = 24 * 3_600_000;

export interface RefundReminder {
  refundRequestId: string;
  orderId: string;
  subscriptionId: string | null;
  amount: number;
  statutory: boolean;
  deadline: string;
}

type Deps = Pick<AppDeps, 'db' | 'clock'>;

export async function runRefundRemindersOnce(deps: Deps, now: Date): Promise<number> {
  let n = 0;
  for (;;) {
    const due = await deps.db
      .selectFrom('refund_requests as rr')
      .leftJoin('subscriptions as s', 's.id', 'rr.subscription_id')
      .select(['rr.id', 'rr.store_id', 'rr.mode', 'rr.order_id', 'rr.subscription_id', 'rr.amount', 'rr.statutory', 'rr.auto_approve_at'])
      .where('rr.status', 'in', ['requested', 'held'])
      .where('rr.seller_reminded_at', 'is', null)
      .where('rr.auto_approve_at', 'is not', null)
      // The request's own "now": its subscription's test clock in test mode, the service time otherwise.
      .where(sql<boolean>`rr.auto_approve_at <= ${now}::timestamptz + (coalesce(s.test_clock_offset_ms, 0) * interval '1 millisecond') + (${REMIND_BEFORE_MS}::bigint * interval '1 millisecond')`)
      .orderBy('rr.auto_approve_at')
      .limit(50)
      .execute();
    for (const r of due) {
      await deps.db.transaction().execute(async (trx) => {
        const claimed = await trx.updateTable('refund_requests').set({ seller_reminded_at: deps.clock.now() }).where('id', '=', r.id).where('seller_reminded_at', 'is', null).where('status', 'in', ['requested', 'held']).executeTakeFirst();
        if (Number(claimed.numUpdatedRows ?? 0) === 0) return;
        const owners = await trx.selectFrom('store_members').select('email').where('store_id', '=', r.store_id).where('role', '=', 'owner').where('disabled_at', 'is', null).execute();
        const data: RefundReminder = { refundRequestId: r.id, orderId: r.order_id, subscriptionId: r.subscription_id, amount: Number(r.amount), statutory: r.statutory, deadline: r.auto_approve_at!.toISOString() };
        const now2 = deps.clock.now();
        const eventId = newId('rrm', deps.clock);
        for (const to of new Set(owners.map((o) => o.email))) {
          await repo.insertMail(trx, {
            id: newId('mail', deps.clock),
            store_id: r.store_id,
            mode: r.mode,
            kind: REFUND_REMINDER_KIND,
            event_id: eventId,
            event_type: 'refund_request.deadline_near',
            data: jsonb(data),
            recipient: to,
            status: 'pending',
            attempts: 0,
            next_attempt_at: now2,
            created_at: now2,
            updated_at: now2,
          });
        }
        n++;
      });
    }
    if (due.length < 50) return n;
  }
}

/** The reminder in Korean with an English summary (owners' language is not recorded). */
export function renderRefundReminder(storeName: string, d: RefundReminder, dashboardUrl: string): RenderedMail {
  const at = kst(new Date(d.deadline));
  const subject = `[${storeName}] 환불 요청 결정 기한이 다가옵니다 (${at})`;
  const what = d.statutory
    ? '법정 청약철회 기간 안의 요청이라 거절할 수 없으며, 기한까지 처리하지 않으면 자동으로 승인되어 환불됩니다.'
    : '구매자가 구독을 바로 해지하며 한 환불 요청입니다. 기한까지 승인·거절하지 않으면 자동으로 승인되어 환불되고 구독이 종료됩니다. 거절하면 구독은 현재 기간 끝까지 이어진 뒤 종료됩니다.';
  const link = `${dashboardUrl}/refund-requests/${encodeURIComponent(d.refundRequestId)}`;
  const lines = [
    `${storeName}의 환불 요청 ${d.refundRequestId} (${won(d.amount)}, 주문 ${d.orderId})의 결정 기한은 ${at}입니다.`,
    what,
    `판매자 대시보드에서 처리하기: ${link}`,
    '',
    `(English) Refund request ${d.refundRequestId} (₩${d.amount.toLocaleString('en-US')}, order ${d.orderId}) must be decided by ${d.deadline}; if it is not, it is approved and refunded automatically${d.statutory ? '' : ' and the subscription ends'}.`,
    '',
  ];
  const body = html`<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:24px 16px;background:#f5f5f7;font-family:-apple-system,BlinkMacSystemFont,'Apple SD Gothic Neo','Malgun Gothic',sans-serif;color:#1d1d1f"><div style="max-width:560px;margin:0 auto;background:#fff;border-radius:12px;padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">환불 요청 결정 기한 알림</h1>
<p>${lines[0]}</p><p>${what}</p><p><a href="${link}">판매자 대시보드에서 처리하기</a></p>
<p style="color:#6e6e73;font-size:13px">${lines[4]}</p>
</div></body></html>`;
  return { subject, text: lines.join('\n'), html: body.value };
}
