-- Catalog, checkout sessions, orders and refund records. Columns for later work (refunds, settlement,
-- subscriptions, the Korean cancel rules) are here now so the paid-order path writes what they will need.

create table products (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  name text not null,
  description text,
  type text not null check (type in ('one_time', 'subscription')),
  status text not null default 'active' check (status in ('active', 'archived')),
  -- one-time products: the price in won; subscriptions: null (prices live in plans)
  price bigint check (price is null or price >= 0),
  -- subscriptions: [{ id, name, monthlyPrice, yearlyPrice }] (won; a null price means the interval is not offered)
  plans jsonb not null default '[]'::jsonb,
  refund_days integer not null default 7 check (refund_days >= 0),
  sale_starts_at timestamptz,
  sale_ends_at timestamptz,
  stock integer check (stock is null or stock >= 0),
  sold_count integer not null default 0,
  -- 'none' | 'service' (the service issues the key) | 'seller' (the seller issues it through license.issue)
  license_mode text not null default 'none' check (license_mode in ('none', 'service', 'seller')),
  license_max_activations integer check (license_max_activations is null or license_max_activations >= 0),
  -- one-time products: days a license is valid (null = forever); subscriptions follow the paid period
  license_validity_days integer check (license_validity_days is null or license_validity_days > 0),
  -- Korean consumer-law inputs for the cancel preview (전자상거래법 제17조⑥, annual discount clawback, penalty rate)
  trial_offered boolean not null default false,
  usage_restriction_marked boolean not null default false,
  clawback_disclosed boolean not null default false,
  penalty_rate integer not null default 10 check (penalty_rate between 0 and 10),
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index products_list_idx on products (store_id, mode, created_at desc, id desc);

create table coupons (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  -- stored upper-case; buyers may type any case
  code text not null,
  name text not null,
  discount_type text not null check (discount_type in ('fixed', 'percent')),
  -- won for 'fixed', 1..100 for 'percent'
  discount_value integer not null check (discount_value > 0),
  valid_from timestamptz,
  valid_until timestamptz,
  max_redemptions integer check (max_redemptions is null or max_redemptions > 0),
  redeemed_count integer not null default 0,
  -- null: every product of the store
  product_ids jsonb,
  status text not null default 'active' check (status in ('active', 'archived')),
  created_at timestamptz not null,
  updated_at timestamptz not null,
  unique (store_id, mode, code)
);

create table checkout_sessions (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  product_id text not null references products(id),
  plan_id text,
  billing_interval text check (billing_interval in ('monthly', 'yearly')),
  -- list price at creation (won), before any coupon
  amount bigint not null,
  customer_name text,
  customer_email text,
  customer_phone text,
  metadata jsonb,
  success_url text,
  cancel_url text,
  -- 'expired' is not stored: a session is expired when status = 'open' and expires_at <= now
  status text not null default 'open' check (status in ('open', 'completed')),
  order_id text,
  -- the order id reserved for this session, used as the gateway's orderId so retries stay idempotent
  pending_order_id text not null unique,
  -- set while a payment attempt is with the gateway (guards double submits across processes)
  attempt_locked_until timestamptz,
  expires_at timestamptz not null,
  completed_at timestamptz,
  created_at timestamptz not null
);
create index checkout_sessions_store_idx on checkout_sessions (store_id, mode, created_at desc);

create table orders (
  id text primary key,
  store_id text not null references stores(id) on delete cascade,
  mode text not null check (mode in ('live', 'test')),
  product_id text not null references products(id),
  product_name text not null,
  plan_id text,
  billing_interval text check (billing_interval in ('monthly', 'yearly')),
  -- unique: one session can never produce two orders
  checkout_session_id text unique references checkout_sessions(id),
  -- pending → paid → (partially refunded stays paid) → refunded; failed/canceled for abandoned payments
  status text not null check (status in ('pending', 'paid', 'refunded', 'failed', 'canceled')),
  amount bigint not null check (amount >= 0),
  currency text not null default 'KRW' check (currency = 'KRW'),
  method text not null check (method in ('card', 'kakao_pay', 'naver_pay', 'toss')),
  buyer_name text not null,
  buyer_email text not null,
  buyer_phone text not null,
  metadata jsonb,
  -- { code, name, discountAmount, originalAmount, currency } or null
  coupon jsonb,
  coupon_id text references coupons(id),
  period_start timestamptz,
  period_end timestamptz,
  paid_at timestamptz,
  confirmed_at timestamptz,
  refunded_at timestamptz,
  refunded_amount bigint,
  -- the gateway side
  provider text not null check (provider in ('simulator', 'toss')),
  provider_payment_key text,
  -- subscriptions (later issue): which subscription and which kind of payment ('initial' | 'renewal' | 'difference')
  subscription_id text,
  subscription_event text check (subscription_event in ('initial', 'renewal', 'difference')),
  -- settlement (later issue): the round this order was paid out in; such orders cannot be refunded
  settlement_id text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index orders_list_idx on orders (store_id, mode, created_at desc, id desc);
create index orders_subscription_idx on orders (subscription_id) where subscription_id is not null;

-- A refund has its own state so the gateway is never called inside a transaction:
-- pending (recorded, gateway not yet answered) → succeeded | failed | unknown (reconciled later).
create table order_refunds (
  id text primary key,
  order_id text not null references orders(id),
  store_id text not null,
  mode text not null,
  amount bigint not null check (amount > 0),
  reason text,
  status text not null check (status in ('pending', 'succeeded', 'failed', 'unknown')),
  -- the key sent to the gateway, reused by reconciliation retries
  provider_idempotency_key text not null,
  error text,
  refund_request_id text,
  created_at timestamptz not null,
  refunded_at timestamptz,
  updated_at timestamptz not null
);
create index order_refunds_order_idx on order_refunds (order_id, created_at);

-- ---- checkout: the buyer's attempt and the payment in flight (added by the checkout issue) ----
-- attempt: what the buyer submitted on the payment page ({ buyerName, buyerEmail, buyerPhone, method, couponCode }),
-- kept while a simulated approval step or the gateway's payment window is open, so the return leg knows it.
alter table checkout_sessions add column attempt jsonb;
-- payment: the payment handed to the gateway ({ state: 'confirming' | 'unknown', paymentKey, amount, coupon, stockReserved, … }).
-- It records which stock unit and coupon redemption this session holds, so a failure releases exactly those and a
-- reconciliation after an unknown outcome can finish or release them later.
alter table checkout_sessions add column payment jsonb;
create index coupons_list_idx on coupons (store_id, mode, created_at desc, id desc);
-- Finds payments left 'confirming' by a process that died mid-call (swept into reconciliation by a periodic task).
create index checkout_sessions_inflight_idx on checkout_sessions (attempt_locked_until) where payment is not null;
