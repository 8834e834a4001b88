-- Refund requests (issue 9): the buyer's receipt page. The refund_requests table itself is created by 006_refunds.sql.

-- The unguessable part of an order's receipt link (`receiptUrl`, /receipt/{orderId}?t=<token>): 122 random bits from
-- gen_random_uuid(), one per order, filled for existing orders too. The link is a capability: whoever holds it may
-- see the order and file or cancel a refund request, so it is only shown to the seller (API, order.paid) who
-- passes it on to the buyer.
alter table orders add column receipt_token text not null default replace(gen_random_uuid()::text, '-', '');

-- ---- refund requests: what the requests module needs beyond 006 ----
-- who decided: 'api' (seller, public API), 'console' (seller console), 'auto' (statutory auto-approval), 'buyer' (canceled)
alter table refund_requests add column decided_by text check (decided_by in ('api', 'console', 'auto', 'buyer'));
-- the amount actually refunded on approval (may differ from `amount`, the amount asked for, when the seller confirmed it)
alter table refund_requests add column approved_amount bigint check (approved_amount > 0);
-- An approval in flight: set (under the request's lock) before the refund engine is called, cleared when the refund
-- is recorded (approved) or definitely failed. While set, another approve answers REFUND_IN_PROGRESS and hold, reject
-- and the buyer's cancel are refused, so one request can never be refunded twice. A refund left unknown keeps it set
-- until reconciliation settles the refund; the refund_requests.follow task then finishes the request.
alter table refund_requests add column approving_since timestamptz;
create index refund_requests_approving_idx on refund_requests (approving_since) where approving_since is not null;
