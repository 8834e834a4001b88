-- Issue 40: 현금영수증 as Toss records it. A buyer's number and a 의무발행 (to the NTS self-issue number 010-000-1234)
-- are no longer left to Toss's payment window (which takes the receipt type only, never the number): each is issued
-- through POST /v1/cash-receipts after the payment (a 가상계좌 after its deposit), like a seller's receipt (migration 073):
-- the row is written `requested` with its Idempotency-Key and the sealed number BEFORE the call, a job sends it.
-- A receipt Toss refuses is `failed` with Toss's code and message, for the seller to retry or issue by hand.
-- See docs/manual/04-checkout-and-orders.md (현금영수증).
alter table order_cash_receipts drop constraint order_cash_receipts_status_check;
alter table order_cash_receipts add constraint order_cash_receipts_status_check check (status in ('requested', 'issued', 'partially_canceled', 'canceled', 'failed'));
-- Toss's error (or CashReceipt.failure) for a refused receipt; cleared when a retry is issued.
alter table order_cash_receipts add column failure_code text;
alter table order_cash_receipts add column failure_message text;
-- Issue attempts sent with a fresh key (1 for the first; a retry after a refusal takes the next key and orderId).
alter table order_cash_receipts add column attempts integer not null default 0;
-- Toss's CashReceipt.issueStatus from its answer (IN_PROGRESS, COMPLETED, FAILED); null for a window-issued receipt.
alter table order_cash_receipts add column issue_status text;
