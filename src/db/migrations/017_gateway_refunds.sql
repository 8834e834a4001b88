-- Refunds made at the payment gateway itself (a cancel in Toss's merchant admin), learned from Toss's webhooks and
-- recorded like any other refund with source 'gateway'. Each one is keyed by the gateway's own cancel transaction key
-- (Toss's Cancel.transactionKey), unique per store and mode, so a repeated or late webhook never records it twice.
alter table order_refunds drop constraint if exists order_refunds_source_check;
alter table order_refunds add constraint order_refunds_source_check
  check (source in ('api', 'console', 'refund_request', 'subscription_cancel', 'gateway'));
alter table order_refunds add column gateway_transaction_key text;
create unique index order_refunds_gateway_tx on order_refunds (store_id, mode, gateway_transaction_key) where gateway_transaction_key is not null;
