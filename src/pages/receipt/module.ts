import type { Module } from '../../deps';
import { BuyerError, cancelRequest, fileRequest, loadReceipt, RefundAccountError } from '../../refunds/requests/buyer-receipt';
import { receiptPage, type ReceiptForm } from './views';
import { statusPage } from '../status-page';
import { sendPage, tokenPages } from '../token-pages';
import { getBusinessDetailsForOrder } from '../../stores/service';
import { COPY, langOf, type Lang } from './copy';
import { chooseLang } from '../lang';
import { refundAccountSummary, saveRefundAccount, simulateDeposit, validateRefundAccount } from '../../checkout/virtual-account';
import { phoneAccountNeeded } from './phone-gift';
import { storeIdOfOrder } from '../repo';
import { ApiError } from '../../platform/errors';
import { requestTaxInvoice } from '../../tax/invoices/service';
import { buyerTaxInvoices } from '../../tax/invoices/buyer';

const VA_DONE = {
  ko: { deposited: '입금이 확인되어 결제가 완료되었습니다.', account: '환불 계좌를 저장했습니다.' },
  en: { deposited: 'Your deposit arrived: the payment is complete.', account: 'Your refund account was saved.' },
};
const TI_DONE = { ko: '세금계산서를 요청했습니다. 발급되면 입력한 이메일로 전송됩니다.', en: 'Your tax invoice was requested. It is sent to the e-mail you gave once issued.' };

// script-src 'self': the shared enhancement script (the license key's copy button); the page works without it.
const CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

type Params = { Params: { orderId: string } };

const first = (v: unknown): string => (typeof (Array.isArray(v) ? v[0] : v) === 'string' ? String(Array.isArray(v) ? v[0] : v) : '');

/** Reads the form fields (urlencoded), first value of each, capped in length. */
function readBody(body: unknown): { t: string; amount: string; reason: string; lang: Lang } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return { t: first(b.t).trim().slice(0, 64), amount: first(b.amount).trim().slice(0, 20), reason: first(b.reason).slice(0, 600), lang: langOf(first(b.lang)) };
}

/** A refund account's fields (the receipt's refund-account form and a 가상계좌 refund request), capped in length. */
function readAccount(body: unknown): { bankCode: string; accountNumber: string; holderName: string } {
  const raw = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return { bankCode: first(raw.bankCode).slice(0, 10), accountNumber: first(raw.accountNumber).slice(0, 40), holderName: first(raw.holderName).slice(0, 100) };
}

/** "10,000" / "10000원" / "" → 10000 / undefined; anything else → NaN (refused with a message). */
function parseAmount(raw: string): number | undefined {
  const s = raw.replace(/[\s,원]/g, '');
  if (s === '') return undefined;
  return /^\d{1,15}$/.test(s) ? Number(s) : Number.NaN;
}

const notFound = (lang: Lang) => statusPage({ lang, icon: '🔍', ...COPY[lang].notFound });

// The receipt sets its own CSP (the copy button's script); tokenPages keeps a page's own policy.
const send = (reply: Parameters<typeof sendPage>[0], status: number, body: string) => sendPage(reply.header('Content-Security-Policy', CSP), status, body);

/**
 * The buyer's receipt page behind `Order.receiptUrl` (/receipt/{orderId}?t=<token>): server-rendered, no JavaScript;
 * Korean, or English with `lang=en` (in the query, and in a hidden field of the forms so it survives a POST).
 * The token is the only credential; forms carry it in a hidden field (a cross-site form cannot know it, so the page
 * needs no other CSRF defence). Wrong id and wrong token answer the same 404 page. After a POST the buyer is sent
 * back to the page (303) so a reload does not resubmit.
 */
const receiptModule: Module = async (app, deps) => {
  await tokenPages(app, {
    referrerPolicy: 'no-referrer',
    bodyLimit: 16 * 1024,
    clientError: { title: '요청을 처리할 수 없습니다', message: '입력한 내용을 확인한 뒤 다시 시도해 주세요.' },
    failure: 'receipt page failed',
  });

  const opts = { schema: { hide: true } };
  const back = (orderId: string, token: string, done: string, lang: Lang) =>
    `/receipt/${encodeURIComponent(orderId)}?t=${encodeURIComponent(token)}${lang === 'en' ? '&lang=en' : ''}&done=${done}`;

  app.get<Params>('/receipt/:orderId', opts, async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const token = first(q.t);
    // ?lang (the switch, remembered in a cookie), else the cookie, else Accept-Language, else Korean (src/pages/lang.ts).
    const chosen = chooseLang({ query: q, headers: req.headers });
    const lang = chosen.lang;
    if (chosen.setCookie) reply.header('Set-Cookie', chosen.setCookie);
    const receipt = await loadReceipt(deps, req.params.orderId, token);
    if (!receipt) return send(reply, 404, notFound(lang));
    const business = await getBusinessDetailsForOrder(deps.db, req.params.orderId);
    // The confirmation is shown only while it is still true (a reload after the seller acted must not repeat it).
    const doneKey = first(q.done);
    const done = (doneKey === 'filed' && receipt.active) || (doneKey === 'canceled' && !receipt.active) ? COPY[lang].done[doneKey] : undefined;
    const refundAccount = receipt.order.virtualAccount || receipt.order.method === 'mobile_phone' ? await refundAccountSummary(deps.db, deps.config.masterKey, receipt.order.id) : null;
    const vaDone = doneKey === 'deposited' ? VA_DONE[lang].deposited : doneKey === 'refund-account' ? VA_DONE[lang].account : undefined;
    const banner = done ?? vaDone;
    const taxInvoice = await buyerTaxInvoices(deps, receipt.order.id);
    const tiDone = doneKey === 'tax-invoice' && taxInvoice.invoices.length > 0 ? TI_DONE[lang] : undefined;
    const shown = banner ?? tiDone;
    return send(reply, 200, receiptPage({ receipt, token, lang, business, banner: shown ? { kind: 'info', text: shown } : undefined, virtualAccount: { refundAccount }, taxInvoice }));
  });

  // 가상계좌, test mode: the deposit arrives (the simulator's testDeposit, then the same secret check and lookup as a
  // real DEPOSIT_CALLBACK). Live orders answer 404: only the buyer's bank makes a live deposit.
  app.post<Params>('/receipt/:orderId/test-deposit', opts, async (req, reply) => {
    const b = readBody(req.body);
    const receipt = await loadReceipt(deps, req.params.orderId, b.t);
    if (!receipt || receipt.order.mode !== 'test' || !receipt.order.virtualAccount) return send(reply, 404, notFound(b.lang));
    const storeId = await storeIdOfOrder(deps.db, receipt.order.id);
    await simulateDeposit(deps, storeId!, receipt.order.id);
    return reply.code(303).header('Location', back(req.params.orderId, b.t, 'deposited', b.lang)).send();
  });

  // 가상계좌: the buyer's refund account (validated; the number stored sealed, shown back as its last four digits).
  app.post<Params>('/receipt/:orderId/refund-account', opts, async (req, reply) => {
    const b = readBody(req.body);
    const input = readAccount(req.body);
    const receipt = await loadReceipt(deps, req.params.orderId, b.t);
    // 가상계좌, and 휴대폰 결제 (refunded to the buyer's account after its KST month; issue 41).
    if (!receipt || (!receipt.order.virtualAccount && receipt.order.method !== 'mobile_phone')) return send(reply, 404, notFound(b.lang));
    const v = validateRefundAccount(input);
    if (!v.ok) {
      const business = await getBusinessDetailsForOrder(deps.db, req.params.orderId);
      const refundAccount = await refundAccountSummary(deps.db, deps.config.masterKey, receipt.order.id);
      const errors = Object.fromEntries(v.errors.map((e) => [e.field, e.message]));
      return send(reply, 422, receiptPage({ receipt, token: b.t, lang: b.lang, business, virtualAccount: { refundAccount, errors, typed: { bankCode: input.bankCode, holderName: input.holderName } } }));
    }
    await saveRefundAccount(deps, receipt.order.id, input);
    return reply.code(303).header('Location', back(req.params.orderId, b.t, 'refund-account', b.lang)).send();
  });

  app.post<Params>('/receipt/:orderId/refund-request', opts, async (req, reply) => {
    const b = readBody(req.body);
    const form: ReceiptForm = { amount: b.amount, reason: b.reason };
    const amount = parseAmount(b.amount);
    const account = readAccount(req.body);
    try {
      if (Number.isNaN(amount)) throw new BuyerError(COPY.ko.notANumber);
      const filed = await fileRequest(deps, req.params.orderId, b.t, { amount, reason: b.reason, refundAccount: account });
      if (!filed) return send(reply, 404, notFound(b.lang));
      return reply.code(303).header('Location', back(req.params.orderId, b.t, 'filed', b.lang)).send();
    } catch (err) {
      if (!(err instanceof BuyerError)) throw err;
      const receipt = await loadReceipt(deps, req.params.orderId, b.t);
      if (!receipt) return send(reply, 404, notFound(b.lang));
      const business = await getBusinessDetailsForOrder(deps.db, req.params.orderId);
      const refundAccount = receipt.order.virtualAccount || receipt.order.method === 'mobile_phone' ? await refundAccountSummary(deps.db, deps.config.masterKey, receipt.order.id) : null;
      if (err instanceof RefundAccountError) {
        // Nothing was filed: the form comes back with the account's fields marked (the number is never sent back).
        const withAccount: ReceiptForm = { ...form, account: { typed: { bankCode: account.bankCode, holderName: account.holderName }, errors: err.fields } };
        const text = receipt.order.method === 'mobile_phone' ? phoneAccountNeeded(b.lang) : COPY[b.lang].refundAccountNeeded;
        return send(reply, 422, receiptPage({ receipt, token: b.t, lang: b.lang, business, banner: { kind: 'error', text }, form: withAccount, virtualAccount: { refundAccount } }));
      }
      const text = err.message === COPY.ko.notANumber ? COPY[b.lang].notANumber : COPY[b.lang].buyerMessage(err.message, receipt.refundable);
      return send(reply, 409, receiptPage({ receipt, token: b.t, lang: b.lang, business, banner: { kind: 'error', text }, form, virtualAccount: { refundAccount } }));
    }
  });

  // 세금계산서: the business buyer asks for one afterwards (src/tax/invoices/; the same rules as the console's request).
  app.post<Params>('/receipt/:orderId/tax-invoice', opts, async (req, reply) => {
    const b = readBody(req.body);
    const raw = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>;
    const typed = Object.fromEntries(['businessNumber', 'companyName', 'representative', 'email'].map((k) => [k, first(raw[k]).slice(0, 254)]));
    const receipt = await loadReceipt(deps, req.params.orderId, b.t);
    if (!receipt) return send(reply, 404, notFound(b.lang));
    try {
      await requestTaxInvoice(deps, receipt.order.id, typed, 'buyer');
      return reply.code(303).header('Location', back(req.params.orderId, b.t, 'tax-invoice', b.lang)).send();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const business = await getBusinessDetailsForOrder(deps.db, req.params.orderId);
      const refundAccount = receipt.order.virtualAccount ? await refundAccountSummary(deps.db, deps.config.masterKey, receipt.order.id) : null;
      const state = await buyerTaxInvoices(deps, receipt.order.id);
      const fields = (err.details as { fields?: Array<{ field: string; message: string }> } | undefined)?.fields;
      const errors = fields ? Object.fromEntries(fields.map((f) => [f.field, f.message])) : undefined;
      return send(reply, fields ? 422 : 409, receiptPage({ receipt, token: b.t, lang: b.lang, business, banner: fields ? undefined : { kind: 'error', text: err.message }, virtualAccount: { refundAccount }, taxInvoice: { ...state, typed, errors } }));
    }
  });

  app.post<Params>('/receipt/:orderId/refund-request/cancel', opts, async (req, reply) => {
    const b = readBody(req.body);
    try {
      const canceled = await cancelRequest(deps, req.params.orderId, b.t);
      if (!canceled) return send(reply, 404, notFound(b.lang));
      return reply.code(303).header('Location', back(req.params.orderId, b.t, 'canceled', b.lang)).send();
    } catch (err) {
      if (!(err instanceof BuyerError)) throw err;
      const receipt = await loadReceipt(deps, req.params.orderId, b.t);
      if (!receipt) return send(reply, 404, notFound(b.lang));
      const business = await getBusinessDetailsForOrder(deps.db, req.params.orderId);
      return send(reply, 409, receiptPage({ receipt, token: b.t, lang: b.lang, business, banner: { kind: 'error', text: COPY[b.lang].buyerMessage(err.message, receipt.refundable) } }));
    }
  });
};

export default receiptModule;
