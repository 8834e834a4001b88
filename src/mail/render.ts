import type { BusinessDetailsView } from '../stores/schemas';
import type { OrderView } from '../orders/schemas';
import { storeFooter } from '../pages/footer';
import { html, kst, raw, won, type SafeHtml } from '../pages/html';
import type { MailKind } from './kinds';

/**
 * The buyer mails, Korean (the checkout and pay pages record no buyer language, so every mail is Korean; the footer
 * labels and templates take `lang` so an English version can follow once a language is recorded). Each mail is HTML
 * with a plain-text alternative, the store's name and its 사업자 정보 footer. No tracking: no images, no pixels, and
 * every link is a plain URL of this service (receipt, portal) with nothing added to it.
 */
export interface RenderInput {
  kind: MailKind;
  /** The event's data (Order, Subscription, Refund request…). */
  data: Record<string, unknown>;
  storeName: string;
  business: BusinessDetailsView | null;
  /** The order the mail is about, read at send time (its licences as they are now). */
  order: OrderView | null;
  /**
   * The subscription: for subscription events, the event's record over the current view (the mail tells what the
   * event said; fields other helpers add, e.g. recurringConsent, read when present); otherwise the current view.
   */
  subscription: Record<string, unknown> | null;
  /** A buyer-portal link minted for this mail (payment failed, trial and price notices). */
  portalUrl: string | null;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

interface Content {
  title: string;
  intro: string[];
  rows: Array<[string, string]>;
  keys?: string[];
  links: Array<[string, string]>;
  notes: string[];
}

const CYCLE: Record<string, string> = { monthly: '매월', yearly: '매년' };
const date = (v: unknown): string => (typeof v === 'string' && v ? kst(new Date(v)) : '-');
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

const END_REASONS: Record<string, string> = {
  canceled: '구독이 해지되었습니다.',
  payment_failed: '정기결제가 여러 번 실패하여 구독이 종료되었습니다.',
  price_change_declined: '새 가격에 동의하지 않으셔서 구독이 현재 기간 끝에 종료되었습니다. 새 가격으로 결제되지 않았습니다.',
};

function orderRows(o: OrderView | null, d: Record<string, unknown>): Array<[string, string]> {
  const src = (o ?? d) as Record<string, unknown>;
  return [
    ['상품', s(src.productName)],
    ['결제 금액', won(num(src.amount))],
    ['결제 일시', date(src.paidAt)],
    ['주문 번호', s(src.id)],
  ];
}

function keysOf(o: OrderView | null): string[] {
  return (o?.licenses ?? []).filter((l) => l.key && l.status !== 'revoked').map((l) => l.key!);
}

function receipt(o: OrderView | null): Array<[string, string]> {
  return o ? [['영수증 보기', o.receiptUrl]] : [];
}

function portal(url: string | null, label = '구독 관리 (카드 변경·해지)'): Array<[string, string]> {
  return url ? [[label, url]] : [];
}

/** The content of each kind, from what the event said and what the mail read at send time. */
function content(i: RenderInput): Content {
  const d = i.data;
  const sub = i.subscription ?? {};
  const change = (d.change ?? {}) as Record<string, unknown>;
  const name = s(sub.productName) || s(i.order?.productName);
  switch (i.kind) {
    case 'order_confirmation':
      return { title: '주문이 완료되었습니다', intro: [`${s(i.order?.buyerName ?? d.buyerName)}님, 구매해 주셔서 감사합니다.`], rows: orderRows(i.order, d), keys: keysOf(i.order), links: receipt(i.order), notes: [] };
    case 'subscription_started': {
      const o = i.order;
      const rows: Array<[string, string]> = [
        ['상품', name],
        ['플랜', s(sub.planId ?? o?.planId)],
        ['결제 금액', won(num(o?.amount ?? d.amount))],
        ['결제 주기', CYCLE[s(sub.billingInterval ?? o?.billingInterval)] ?? '-'],
        ['다음 결제일', date(sub.currentPeriodEnd ?? o?.periodEnd)],
        ['결제 일시', date(o?.paidAt ?? d.paidAt)],
      ];
      const notes: string[] = [];
      if (typeof sub.trialEndsAt === 'string') notes.push(`무료 체험이 ${date(sub.trialEndsAt)}에 끝나며, 그때 첫 정기결제 ${won(num(sub.amount))}이(가) 이루어집니다. 체험 기간 중 해지하면 결제되지 않습니다.`);
      const consent = sub.recurringConsent as { text?: string; consentedAt?: string } | null | undefined;
      if (consent?.text) notes.push(`정기결제 동의 (${date(consent.consentedAt)}): ${consent.text}`);
      notes.push('구독은 언제든 구독 관리 페이지에서 해지할 수 있습니다.');
      return { title: '구독이 시작되었습니다', intro: [`${name} 구독을 시작해 주셔서 감사합니다.`], rows, keys: keysOf(o), links: receipt(o), notes };
    }
    case 'renewal_receipt':
      return {
        title: '정기결제 영수증',
        intro: [`${s(i.order?.productName ?? d.productName)} 구독이 갱신되었습니다.`],
        rows: [...orderRows(i.order, d), ['이용 기간', `${date(i.order?.periodStart ?? d.periodStart)} ~ ${date(i.order?.periodEnd ?? d.periodEnd)}`]],
        keys: keysOf(i.order),
        links: receipt(i.order),
        notes: [],
      };
    case 'refund_completed': {
      const refund = (d.refund ?? {}) as Record<string, unknown>;
      const o = (i.order ?? d.order) as OrderView | null;
      return {
        title: '환불이 완료되었습니다',
        intro: [`${s(o?.productName)} 주문의 환불이 처리되었습니다. 카드사 사정에 따라 실제 취소까지 며칠이 걸릴 수 있습니다.`],
        rows: [['환불 금액', won(num(refund.amount))], ['누적 환불 금액', won(num(o?.refundedAmount))], ['결제 금액', won(num(o?.amount))], ['주문 번호', s(o?.id)]],
        links: receipt(i.order),
        notes: [],
      };
    }
    case 'refund_request_received':
      return {
        title: '환불 요청이 접수되었습니다',
        intro: [`${s(i.order?.productName)} 주문의 환불 요청을 받았습니다. 판매자가 검토한 뒤 결과를 메일로 알려 드립니다.`],
        rows: [['요청 금액', won(num(d.amount))], ['요청 일시', date(d.requestedAt)], ['사유', s(d.reason) || '-'], ['주문 번호', s(d.orderId)]],
        links: receipt(i.order),
        notes: [],
      };
    case 'refund_request_decided': {
      const ok = d.status === 'approved';
      return {
        title: ok ? '환불 요청이 승인되었습니다' : '환불 요청이 거절되었습니다',
        intro: [ok ? '환불 요청이 승인되어 환불이 진행됩니다.' : '판매자가 환불 요청을 거절했습니다.'],
        rows: [['요청 금액', won(num(d.amount))], ...(ok ? [['승인 금액', won(num(d.approvedAmount ?? d.amount))] as [string, string]] : []), ['사유', s(d.decisionReason) || '-'], ['주문 번호', s(d.orderId)]],
        links: receipt(i.order),
        notes: ok ? [] : ['궁금한 점은 아래 고객센터로 문의해 주세요.'],
      };
    }
    case 'payment_failed':
      return {
        title: '정기결제에 실패했습니다',
        intro: [`${name} 구독의 정기결제 ${won(num(sub.amount))}이(가) 승인되지 않았습니다. 아래 구독 관리 페이지에서 카드를 바꿔 주세요.`],
        rows: [['상품', name], ['금액', won(num(sub.amount))], ['다음 재시도', date(change.nextRetryAt ?? sub.nextRetryAt)]],
        links: portal(i.portalUrl, '카드 변경하기'),
        notes: ['링크는 7일 동안 열립니다. 재시도가 모두 실패하면 구독이 종료됩니다.'],
      };
    case 'cancellation_confirmed':
      return {
        title: '구독 해지가 예약되었습니다',
        intro: [`${name} 구독이 현재 기간 끝에 해지됩니다. 그때까지 계속 이용하실 수 있고, 더 결제되지 않습니다.`],
        rows: [['상품', name], ['이용 종료', date(sub.currentPeriodEnd)]],
        links: receipt(i.order),
        notes: [],
      };
    case 'subscription_ended':
      return {
        title: '구독이 종료되었습니다',
        intro: [`${name} 구독이 ${date(sub.endedAt)}에 종료되었습니다.`, END_REASONS[s(sub.endReason)] ?? ''].filter(Boolean),
        rows: [['상품', name], ['종료 일시', date(sub.endedAt)]],
        links: [],
        notes: [],
      };
    case 'renewal_upcoming':
      return {
        title: '연간 구독 갱신 안내',
        intro: [`${name} 연간 구독이 ${date(change.renewsAt)}에 자동 갱신되며 ${won(num(change.amount))}이(가) 결제됩니다.`],
        rows: [['상품', name], ['갱신 일자', date(change.renewsAt)], ['결제 예정 금액', won(num(change.amount))]],
        links: portal(i.portalUrl),
        notes: ['갱신을 원하지 않으면 갱신일 전에 구독 관리 페이지에서 해지하세요.'],
      };
    case 'trial_will_end':
      return {
        title: '무료 체험 종료 및 첫 결제 안내',
        intro: [`${name} 무료 체험이 ${date(change.trialEndsAt)}에 끝나고, 그때 첫 정기결제 ${won(num(change.amount))}이(가) 이루어집니다.`],
        rows: [['상품', name], ['첫 결제일', date(change.trialEndsAt)], ['결제 금액', won(num(change.amount))], ['결제 주기', CYCLE[s(change.interval)] ?? '-']],
        links: portal(i.portalUrl),
        notes: ['결제를 원하지 않으면 체험이 끝나기 전에 구독 관리 페이지에서 해지하세요. 체험 중 해지하면 결제되지 않습니다.'],
      };
    case 'price_change_scheduled':
      return {
        title: '구독 가격 변경 안내 (동의 필요)',
        intro: [`${name} 구독 가격이 ${date(change.effectiveAt)}부터 ${won(num(change.currentAmount))}에서 ${won(num(change.newAmount))}(으)로 바뀝니다.`],
        rows: [['현재 가격', won(num(change.currentAmount))], ['새 가격', won(num(change.newAmount))], ['적용일', date(change.effectiveAt)], ['동의 기한', date(change.decideBy)]],
        links: portal(i.portalUrl, '새 가격에 동의하기'),
        notes: ['구독 관리 페이지에서 새 가격에 동의해 주세요. 동의하지 않으면 구독은 현재 기간 끝에 종료되며, 새 가격으로 결제되지 않습니다.'],
      };
    case 'price_change_accepted':
      return {
        title: '새 가격 동의가 확인되었습니다',
        intro: [`${name} 구독의 새 가격 ${won(num(change.newAmount))}에 동의하셨습니다. 적용일 이후 갱신부터 새 가격으로 결제됩니다.`],
        rows: [['새 가격', won(num(change.newAmount))], ['적용일', date(change.effectiveAt)]],
        links: [],
        notes: [],
      };
  }
}

const STYLE =
  'body{margin:0;padding:0;background:#f5f5f7;font-family:-apple-system,BlinkMacSystemFont,"Apple SD Gothic Neo","Malgun Gothic",sans-serif;color:#1d1d1f}' +
  '.wrap{max-width:560px;margin:0 auto;padding:24px 16px}.card{background:#fff;border-radius:12px;padding:24px}' +
  'h1{font-size:20px;margin:0 0 16px}table{width:100%;border-collapse:collapse;margin:16px 0}th{text-align:left;color:#6e6e73;font-weight:normal;padding:6px 8px 6px 0;width:35%;vertical-align:top}' +
  'td{padding:6px 0;word-break:break-all}.keys code{display:block;background:#f5f5f7;padding:8px;border-radius:6px;margin:4px 0;font-size:14px}' +
  'a.btn{display:inline-block;margin:4px 0;color:#0066cc}.notes{color:#424245;font-size:14px}.biz{color:#6e6e73;font-size:12px;margin-top:16px}';

/** Renders one mail: subject, HTML and its plain-text alternative. */
export function renderMail(i: RenderInput): RenderedMail {
  const c = content(i);
  const subject = `[${i.storeName}] ${c.title}`;
  const keys = c.keys ?? [];
  const text = [
    c.title,
    '',
    ...c.intro,
    '',
    ...c.rows.map(([k, v]) => `${k}: ${v}`),
    ...(keys.length ? ['', '라이선스 키:', ...keys.map((k) => `  ${k}`)] : []),
    ...(c.links.length ? ['', ...c.links.map(([k, v]) => `${k}: ${v}`)] : []),
    ...(c.notes.length ? ['', ...c.notes] : []),
    '',
    '--',
    ...footerText(i.storeName, i.business),
    '',
  ].join('\n');
  const body: SafeHtml = html`<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title><style>${raw(STYLE)}</style></head>
<body><div class="wrap"><div class="card">
<p>${i.storeName}</p>
<h1>${c.title}</h1>
${c.intro.map((p) => html`<p>${p}</p>`)}
<table>${c.rows.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>
${keys.length ? html`<div class="keys"><p><strong>라이선스 키</strong></p>${keys.map((k) => html`<code>${k}</code>`)}</div>` : ''}
${c.links.map(([k, v]) => html`<p><a class="btn" href="${v}">${k}</a></p>`)}
${c.notes.length ? html`<div class="notes">${c.notes.map((n) => html`<p>${n}</p>`)}</div>` : ''}
</div>
${storeFooter(i.storeName, i.business)}
</div></body></html>`;
  return { subject, text, html: body.value };
}

function footerText(storeName: string, b: BusinessDetailsView | null): string[] {
  if (!b) return [`판매자: ${storeName}`, '판매자 사업자 정보가 아직 등록되지 않았습니다 (테스트 모드).'];
  return [
    `${b.companyName} · 대표자 ${b.representative}`,
    `사업자등록번호 ${b.businessNumber} · 통신판매업 신고번호 ${b.mailOrderNumber}`,
    b.address,
    `고객센터 ${[b.supportPhone, b.supportEmail].filter(Boolean).join(' · ')}`,
  ];
}
