/**
 * The copy of the mail sent when a 가상계좌 is issued (`order.awaiting_deposit`): the same facts the issuance page shows
 * (bank, account number, holder, exact amount, deposit deadline), so a buyer who closed the page still knows where,
 * how much and by when. The facts are the event's own (the order as issued), never re-read: what was issued is what
 * the bank accepts.
 */
import { num, s, type Ctx, type CopyTable } from './kit';

const accountOf = (c: Ctx) => (c.d.virtualAccount ?? {}) as Record<string, unknown>;

export const VIRTUAL_ACCOUNT_COPY: CopyTable<'virtual_account_issued'> = {
  virtual_account_issued: {
    ko: (c) => {
      const va = accountOf(c);
      return {
        title: '가상계좌가 발급되었습니다. 입금 기한까지 입금해 주세요',
        intro: [`${s(c.d.buyerName)}님, ${s(c.d.productName)} 주문의 가상계좌가 발급되었습니다. 아직 결제된 것이 아니며, 아래 계좌로 입금 기한까지 금액을 정확히 입금하면 결제가 완료됩니다.`],
        rows: [
          ['은행', s(va.bankName)],
          ['계좌번호', s(va.accountNumber)],
          ...(s(va.holderName) ? [['예금주', s(va.holderName)] as [string, string]] : []),
          ['입금할 금액', c.f.money(num(c.d.amount))],
          ['입금 기한', c.f.date(va.dueAt)],
          ['상품', s(c.d.productName)],
          ['주문 번호', s(c.d.id)],
        ],
        links: c.receipt,
        notes: [
          '금액이 다르면 입금되지 않으며, 나누어 입금할 수 없습니다.',
          '입금 기한이 지나면 계좌가 닫히고 주문은 취소됩니다(결제되지 않습니다).',
          '입금이 확인되면 주문 완료 메일을 보내 드립니다.',
        ],
      };
    },
    en: (c) => {
      const va = accountOf(c);
      return {
        title: 'Your virtual account is ready: please deposit by the deadline',
        intro: [`${s(c.d.buyerName)}, a virtual account was issued for your order of ${s(c.d.productName)}. Nothing has been paid yet: deposit the exact amount to the account below by the deadline to complete the payment.`],
        rows: [
          ['Bank', s(va.bankName)],
          ['Account number', s(va.accountNumber)],
          ...(s(va.holderName) ? [['Account holder', s(va.holderName)] as [string, string]] : []),
          ['Amount to deposit', c.f.money(num(c.d.amount))],
          ['Deposit by', c.f.date(va.dueAt)],
          ['Product', s(c.d.productName)],
          ['Order number', s(c.d.id)],
        ],
        links: c.receipt,
        notes: [
          'A deposit of any other amount is not accepted, and the amount cannot be split.',
          'After the deadline the account closes and the order is canceled (nothing is charged).',
          'We will mail you once the deposit arrives.',
        ],
      };
    },
  },
};
