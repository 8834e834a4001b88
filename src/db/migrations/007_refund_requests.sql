-- Refund requests (issue 9): the buyer's receipt page. The refund_requests table itself is created by 006_refunds.sql.

-- The unguessable part of an order's receipt link (`receiptUrl`, /receipt/{orderId}?t=<token>): 122 random bits from
-- gen_random_uuid(), one per order, filled for existing orders too. The link is a capability: whoever holds it may
-- see the order and file or cancel a refund request, so it is only shown to the seller (API, order.paid) who
-- passes it on to the buyer.
alter table orders add column receipt_token text not null default replace(gen_random_uuid()::text, '-', '');
