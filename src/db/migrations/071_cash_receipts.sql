-- Issue 32: 현금영수증 for 계좌이체 and 가상계좌. One row per order that asked for (or, by law, needed) one: the buyer's
-- choice is kept with the order from the payment; Toss's answer (Payment.cashReceipt: receiptKey, issueNumber,
-- receiptUrl, amount) fills in when the receipt is issued (a transfer at confirm, a 가상계좌 at the deposit).
-- See docs/manual/04-checkout-and-orders.md (현금영수증).
create table order_cash_receipts (
  order_id text primary key references orders(id),
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  -- Toss's CashReceipt.type
  type text not null check (type in ('소득공제', '지출증빙')),
  -- The buyer's identity number (phone, card or 사업자번호) masked for display; the full number is never stored here
  identity_masked text,
  -- buyer: the buyer asked; mandatory: 의무발행 (100,000원 or more) to the NTS self-issue number 010-000-1234
  requested_by text not null check (requested_by in ('buyer', 'mandatory')),
  receipt_key text,
  issue_number text,
  receipt_url text,
  amount integer,
  -- requested (not issued yet), issued, partially_canceled, canceled
  status text not null check (status in ('requested', 'issued', 'partially_canceled', 'canceled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index order_cash_receipts_store on order_cash_receipts (store_id, mode);
