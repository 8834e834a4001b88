/**
 * The sign-in mail of the buyer page ("내 구매내역", src/pages/buyer/): a one-time link to the buyer's orders in one
 * store and mode, or, when the address bought nothing there, a note saying so (the page answered the same either
 * way; only the mailbox's owner learns which). It goes through the mail outbox like every buyer mail: test mode keeps
 * it in the dashboard's mailbox, live sends it through SMTP_URL. The link's token is derived from the link's id when
 * the mail is rendered (src/buyers/model.ts), so the outbox row holds no token. Not a kind a store may turn off: a
 * buyer who asks for a link must get it.
 */
import type { Db } from '../db';
import { jsonb } from '../db';
import type { Clock } from '../platform/clock';
import { newId } from '../platform/ids';
import type { Mode } from '../platform/tables';
import { html, kst } from '../pages/html';
import { enTime } from '../pages/receipt/copy';
import { storeFooter } from '../pages/footer';
import type { BusinessDetailsView } from '../stores/schemas';
import { buyerPagePath, signInLinkToken } from '../buyers/model';
import type { SignInNotice } from '../buyers/service';
import type { MailLang, RenderedMail } from './render-input';
import * as repo from './repo';

export const BUYER_SIGN_IN_KIND = 'buyer_sign_in';
export const BUYER_SIGN_IN_LABEL = { ko: '구매내역 로그인 링크', en: 'Order history sign-in link' };

interface SignInMailData {
  linkId: string;
  bought: boolean;
  expiresAt: string;
  lang: MailLang;
}

/** Writes the sign-in mail in the link's transaction (one per link: the link's id is the mail's event id). */
export async function queueBuyerSignInMail(trx: Db, clock: Clock, o: { storeId: string; mode: Mode; notice: SignInNotice; lang: MailLang }): Promise<void> {
  const now = clock.now();
  const data: SignInMailData = { linkId: o.notice.linkId, bought: o.notice.bought, expiresAt: o.notice.expiresAt.toISOString(), lang: o.lang };
  await repo.insertMail(trx, {
    id: newId('mail', clock),
    store_id: o.storeId,
    mode: o.mode,
    kind: BUYER_SIGN_IN_KIND,
    event_id: o.notice.linkId,
    event_type: 'buyer.sign_in_requested',
    data: jsonb(data as unknown as Record<string, unknown>),
    recipient: o.notice.email,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  });
}

const COPY = {
  ko: {
    title: (bought: boolean) => (bought ? '구매내역 로그인 링크' : '구매내역을 찾지 못했습니다'),
    intro: (store: string) => `${store}의 ‘내 구매내역’에서 이 주소로 로그인 링크를 요청했습니다.`,
    button: '내 구매내역 열기',
    until: (d: Date) => `이 링크는 한 번만 쓸 수 있고 ${kst(d)} KST까지 열립니다. 지나면 구매내역 페이지에서 새 링크를 요청하세요.`,
    none: (store: string) => `이 주소로 ${store}에서 결제한 주문이 없습니다. 결제할 때 다른 이메일 주소를 입력했다면 그 주소로 다시 요청해 주세요.`,
    page: '구매내역 페이지',
    ignore: '직접 요청하지 않았다면 이 메일은 무시해도 됩니다. 링크를 열지 않으면 아무 일도 일어나지 않습니다.',
  },
  en: {
    title: (bought: boolean) => (bought ? 'Your sign-in link' : 'No orders found'),
    intro: (store: string) => `Someone asked for a sign-in link to “My orders” at ${store} with this address.`,
    button: 'Open my orders',
    until: (d: Date) => `The link works once, until ${enTime(d)}. After that, ask for a new one on the orders page.`,
    none: (store: string) => `No order was paid at ${store} with this address. If you paid with another e-mail address, ask again with that one.`,
    page: 'Orders page',
    ignore: 'If you did not ask for this, ignore this mail: nothing happens unless the link is opened.',
  },
};

/** The mail, in the language of the page it was asked from. */
export function renderBuyerSignIn(o: { storeName: string; business: BusinessDetailsView | null; storeId: string; mode: Mode; publicBaseUrl: string; masterKey: Buffer; data: Record<string, unknown> }): RenderedMail {
  const d = o.data as unknown as SignInMailData;
  const lang: MailLang = d.lang === 'en' ? 'en' : 'ko';
  const c = COPY[lang];
  const page = `${o.publicBaseUrl}${buyerPagePath(o.storeId, o.mode)}${lang === 'en' ? '?lang=en' : ''}`;
  const link = `${o.publicBaseUrl}${buyerPagePath(o.storeId, o.mode)}/sign-in/${signInLinkToken(o.masterKey, d.linkId)}${lang === 'en' ? '?lang=en' : ''}`;
  const subject = `[${o.storeName}] ${c.title(d.bought)}`;
  const paras = d.bought ? [c.intro(o.storeName), c.until(new Date(d.expiresAt))] : [c.intro(o.storeName), c.none(o.storeName)];
  const text = [c.title(d.bought), '', ...paras, '', d.bought ? `${c.button}: ${link}` : `${c.page}: ${page}`, '', c.ignore, ''].join('\n');
  const body = html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:24px 16px;background:#f5f5f7;font-family:-apple-system,BlinkMacSystemFont,'Apple SD Gothic Neo','Malgun Gothic',sans-serif;color:#1d1d1f"><div style="max-width:560px;margin:0 auto"><div style="background:#fff;border-radius:12px;padding:24px">
<p>${o.storeName}</p>
<h1 style="font-size:20px;margin:0 0 16px">${c.title(d.bought)}</h1>
${paras.map((p) => html`<p>${p}</p>`)}
<p><a href="${d.bought ? link : page}" style="color:#0066cc">${d.bought ? c.button : c.page}</a></p>
<p style="color:#6e6e73;font-size:13px">${c.ignore}</p>
</div>
${storeFooter(o.storeName, o.business, lang)}
</div></body></html>`;
  return { subject, text, html: body.value };
}
