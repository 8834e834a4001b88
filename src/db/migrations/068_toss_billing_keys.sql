-- A second Toss key pair per mode for 자동결제 (issue 32). Toss contracts automatic (billing) payments under their own
-- merchant id (MID) with their own client and secret keys ("자동결제(빌링)로 계약된 상점아이디(MID)를 선택한 다음에
-- 클라이언트 키와 시크릿 키를 확인하세요", https://docs.tosspayments.com/guides/v2/billing/integration-quick). When a mode holds
-- this pair, subscriptions (billing-auth window, billing key issue, charges, card change) use it and one-time payments
-- keep the first pair. The secret key is sealed with the master key like the first one.
alter table store_mode_settings add column toss_billing_client_key text;
alter table store_mode_settings add column toss_billing_secret_key_sealed text;

-- When Toss last accepted the billing pair's secret key (the first pair's stays in keys_verified_at).
alter table store_toss_state add column billing_keys_verified_at timestamptz;

-- Which of the mode's two Toss key pairs issued a subscription's billing key ('payments': the first pair, 'billing':
-- the 자동결제 pair). A billing key only works under the MID that issued it, so charges and deletes follow this, not
-- whatever pair the settings hold today.
alter table subscriptions add column toss_key_pair text not null default 'payments' check (toss_key_pair in ('payments', 'billing'));

-- Which pair took an order's payment: its cancels and lookups must go to the same MID.
alter table orders add column toss_key_pair text not null default 'payments' check (toss_key_pair in ('payments', 'billing'));
