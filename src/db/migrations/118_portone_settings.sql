-- PortOne V2 as a second payment rail (issue 42): a store may choose 'portone' per mode, and an order records that it
-- was paid through it. PortOne's credentials per mode (https://developers.portone.io, 콘솔 › 결제 연동 › 연동 정보):
-- the store id (`store-…`), the V2 API Secret and the webhook secret (Standard Webhooks, `whsec_…`), both sealed with
-- the master key like Toss's secret key, and the channel key of each payment method the seller's PG contracts offer
-- (e.g. {"card": "channel-key-…", "virtual_account": "channel-key-…"}). Channel keys are public (the browser SDK
-- opens the window with them), so they are stored plain.
alter table store_mode_settings drop constraint if exists store_mode_settings_payment_provider_check;
alter table store_mode_settings add constraint store_mode_settings_payment_provider_check
  check (payment_provider in ('simulator', 'toss', 'portone'));

alter table store_mode_settings add column portone_store_id text;
alter table store_mode_settings add column portone_api_secret_sealed text;
alter table store_mode_settings add column portone_webhook_secret_sealed text;
alter table store_mode_settings add column portone_channel_keys jsonb not null default '{}'::jsonb;

-- orders is a big table: the widened check is added NOT VALID (no scan under the exclusive lock) and validated after,
-- which only takes a lock that lets reads and writes go on.
alter table orders drop constraint if exists orders_provider_check;
alter table orders add constraint orders_provider_check check (provider in ('simulator', 'toss', 'portone')) not valid;
alter table orders validate constraint orders_provider_check;
