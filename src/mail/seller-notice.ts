import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from '../platform/clock';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import { html, kst } from '../pages/html';
import type { RenderedMail } from './render-input';
import * as repo from './repo';

/**
 * Mail to the store's owners when something that decides where the store's money goes changes (the Toss Payments
 * keys or provider, the business details): whoever made the change, the owners hear of it. It goes through the mail
 * outbox like buyer mail (test-mode mails are kept in the dashboard's mailbox, live ones sent through SMTP_URL), but
 * it is not one of the buyer mail kinds a store may turn off.
 */
export const SELLER_NOTICE_KIND = 'seller_security_notice';
export const SELLER_NOTICE_LABEL = { ko: '보안 알림 (소유자)', en: 'Security notice (owners)' };

export interface SellerNotice {
  change: 'toss_keys' | 'business_details';
  /** The mode whose settings changed; null for store-wide ones (business details). */
  settingsMode: Mode | null;
  /** Names of the fields that changed (never their secret values). */
  fields: string[];
  actor: { name: string | null; email: string | null };
  ip: string | null;
  at: string;
}

/**
 * Writes one notice per owner in the caller's transaction (or right after the change). `mode` is the outbox mode: a
 * store-wide change is mailed as live, so it really leaves (a change made while looking at test mode is still real).
 */
export async function queueSellerNotice(db: Db, clock: Clock, o: { storeId: string; mode: Mode; recipients: string[]; notice: SellerNotice }): Promise<number> {
  const now = clock.now();
  const eventId = newId('sn', clock);
  let n = 0;
  for (const to of new Set(o.recipients)) {
    const wrote = await repo.insertMail(db, {
      id: newId('mail', clock),
      store_id: o.storeId,
      mode: o.mode,
      kind: SELLER_NOTICE_KIND,
      event_id: eventId,
      event_type: 'dashboard.settings_changed',
      data: jsonb(o.notice),
      recipient: to,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    });
    if (wrote) n++;
  }
  return n;
}

const WHAT = {
  toss_keys: { ko: '결제 설정(결제대행사·토스페이먼츠·포트원 키)', en: 'payment settings (provider, Toss Payments and PortOne keys)' },
  business_details: { ko: '사업자 정보', en: 'business details' },
};

/** The notice in Korean with an English summary (owners' language is not recorded). */
export function renderSellerNotice(storeName: string, d: SellerNotice): RenderedMail {
  const what = WHAT[d.change] ?? WHAT.toss_keys;
  const mode = d.settingsMode === 'live' ? ' (라이브 모드)' : d.settingsMode === 'test' ? ' (테스트 모드)' : '';
  const who = [d.actor.name, d.actor.email ? `<${d.actor.email}>` : null].filter(Boolean).join(' ') || '운영자';
  const at = kst(new Date(d.at));
  const subject = `[${storeName}] ${what.ko}${mode}이 변경되었습니다`;
  const lines = [
    `${storeName}의 ${what.ko}${mode}이 변경되었습니다.`,
    '',
    `변경한 사람: ${who}`,
    `시각: ${at}`,
    `접속 주소: ${d.ip ?? '-'}`,
    `바뀐 항목: ${d.fields.join(', ') || '-'}`,
    '',
    '직접 바꾼 것이 아니라면 바로 판매자 대시보드에서 설정을 확인하고, 감사 로그를 살펴본 뒤 해당 멤버를 비활성화하세요.',
    '',
    `(English) The ${what.en} of ${storeName}${d.settingsMode ? ` (${d.settingsMode} mode)` : ''} changed: ${d.fields.join(', ') || '-'}, by ${who} at ${d.at} from ${d.ip ?? '-'}. If this was not you or your team, check the settings and the audit log now.`,
    '',
  ];
  const body = html`<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:24px 16px;background:#f5f5f7;font-family:-apple-system,BlinkMacSystemFont,'Apple SD Gothic Neo','Malgun Gothic',sans-serif;color:#1d1d1f"><div style="max-width:560px;margin:0 auto;background:#fff;border-radius:12px;padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${what.ko}${mode} 변경 알림</h1>
<p>${storeName}의 ${what.ko}${mode}이 변경되었습니다.</p>
<table style="width:100%;border-collapse:collapse"><tr><th style="text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0">변경한 사람</th><td>${who}</td></tr>
<tr><th style="text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0">시각</th><td>${at}</td></tr>
<tr><th style="text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0">접속 주소</th><td>${d.ip ?? '-'}</td></tr>
<tr><th style="text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0">바뀐 항목</th><td>${d.fields.join(', ') || '-'}</td></tr></table>
<p>직접 바꾼 것이 아니라면 바로 판매자 대시보드에서 설정을 확인하고, 감사 로그를 살펴본 뒤 해당 멤버를 비활성화하세요.</p>
<p style="color:#6e6e73;font-size:13px">${lines[lines.length - 2]}</p>
</div></body></html>`;
  return { subject, text: lines.join('\n'), html: body.value };
}
