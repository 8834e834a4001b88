-- Issue 41: 휴대폰 결제 (mobile_phone) and 상품권 (culture_gift, book_gift, game_gift) for one-time payments.
-- Added NOT VALID and validated apart so the orders table is not locked against writes while its rows are checked.
alter table orders drop constraint if exists orders_method_check;
alter table orders add constraint orders_method_check check (method in ('card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account', 'mobile_phone', 'culture_gift', 'book_gift', 'game_gift')) not valid;
alter table orders validate constraint orders_method_check;

-- The buyer's refund account for an order that is not a 가상계좌 one (those keep theirs on order_virtual_accounts): a
-- 휴대폰 결제 refunded after the KST month it was paid goes back to the buyer's bank account (Toss's
-- refundReceiveAccount). The number is personal data, sealed with the master key; shown only as its last four digits.
create table order_refund_accounts (
  order_id text primary key references orders(id),
  store_id text not null,
  mode text not null check (mode in ('live', 'test')),
  refund_bank_code text not null,
  refund_account_sealed text not null,
  refund_holder_name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
