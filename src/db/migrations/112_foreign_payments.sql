-- Issue 41 (buyers abroad): overseas-issued cards and PayPal through Toss. See docs/manual/29-buyers-abroad.md.
-- Methods: 'foreign_card' (Toss's 다국어 카드 결제창, useInternationalCardOnly; approved and settled in KRW) and
-- 'paypal' (Toss's 해외간편결제 FOREIGN_EASY_PAY provider PAYPAL; approved and refunded in USD only).
-- This list holds every method of src/payments/method.ts (107's 휴대폰/상품권 included).
alter table orders drop constraint if exists orders_method_check;
alter table orders add constraint orders_method_check check (method in ('card', 'kakao_pay', 'naver_pay', 'toss', 'transfer', 'virtual_account', 'mobile_phone', 'culture_gift', 'book_gift', 'game_gift', 'foreign_card', 'paypal'));

-- The store's choice per mode: which of the two methods the payment page offers (both off by default: each needs its
-- own contract with Toss), and for PayPal the fixed rate the seller sets (won per US$1) that turns the KRW price into
-- the USD amount the buyer pays.
alter table store_mode_settings add column foreign_methods jsonb not null default '[]'::jsonb;
alter table store_mode_settings add column usd_krw_rate integer check (usd_krw_rate is null or usd_krw_rate between 100 and 100000);

-- What the buyer was charged in the gateway's currency when it is not KRW (PayPal: USD in cents). `amount` stays the
-- KRW price of the order (the contract's currency); presentment_* is the money that actually moved at the gateway.
alter table orders add column presentment_amount integer check (presentment_amount is null or presentment_amount > 0);
alter table orders add column presentment_currency text check (presentment_currency is null or presentment_currency = 'USD');
alter table orders add constraint orders_presentment_pair check ((presentment_amount is null) = (presentment_currency is null));
-- Each refund's share of it (cents): what was canceled at the gateway, fixed before the gateway is called.
alter table order_refunds add column presentment_amount integer check (presentment_amount is null or presentment_amount >= 0);
