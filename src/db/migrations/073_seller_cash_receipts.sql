-- Issue 32: the seller issues a 현금영수증 afterwards for a paid 계좌이체 / 가상계좌 order that has none (Toss's
-- POST /v1/cash-receipts, a receipt of its own, not part of the payment). requested_by 'seller' marks it; the row is
-- written as 'requested' with its idempotency key BEFORE Toss is called, so a crash between the call and the record
-- re-sends the same key and never issues twice. Its refunds reduce it through Toss's cancel call (the payment's cancel
-- does not touch it): target_amount is what it must still cover, amount what Toss says it covers.
-- See docs/manual/04-checkout-and-orders.md (현금영수증).
alter table order_cash_receipts drop constraint order_cash_receipts_requested_by_check;
alter table order_cash_receipts add constraint order_cash_receipts_requested_by_check check (requested_by in ('buyer', 'mandatory', 'seller'));
-- The Idempotency-Key of the issue call (seller receipts only).
alter table order_cash_receipts add column issue_key text;
-- The full identity number, sealed with the master key, kept only until Toss has answered (a retry must send it again).
alter table order_cash_receipts add column identity_sealed text;
-- Seller receipts: what the receipt must cover after the order's refunds (null: what it was issued for).
alter table order_cash_receipts add column target_amount integer;
