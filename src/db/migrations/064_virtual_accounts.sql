-- Issue 32: 가상계좌. The order exists from the account's issue in `awaiting_deposit` (stock and coupon held, no
-- licenses, no order.paid), becomes `paid` when Toss's DEPOSIT_CALLBACK is proven (its secret equals the payment's and a
-- Toss lookup says DONE), or `expired` at the due date (stock and coupon released). See docs/manual/04-checkout-and-orders.md.
alter table orders drop constraint if exists orders_status_check;
alter table orders add constraint orders_status_check check (status in ('pending', 'awaiting_deposit', 'paid', 'refunded', 'failed', 'canceled', 'expired'));

create table order_virtual_accounts (
  order_id text primary key references orders(id),
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  -- Toss's Payment.virtualAccount: bankCode (Toss's bank code table), accountNumber, customerName, dueDate
  bank_code text not null,
  account_number text not null,
  holder_name text not null,
  due_at timestamptz not null,
  -- Toss's Payment.secret (what DEPOSIT_CALLBACK must echo), sealed with the master key
  secret_sealed text,
  deposited_at timestamptz,
  expired_at timestamptz,
  -- The buyer's refund account (refundReceiveAccount of Toss's cancel): the number is personal data, sealed
  refund_bank_code text,
  refund_account_sealed text,
  refund_holder_name text,
  refund_account_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index order_virtual_accounts_waiting on order_virtual_accounts (due_at) where deposited_at is null and expired_at is null;
create index order_virtual_accounts_store on order_virtual_accounts (store_id, mode);
