-- The seller's reminder before a refund request's deadline (issue 38 item 5): a portal cancel's request waiting for
-- the seller is approved automatically at `auto_approve_at` (12:00 KST on the 3rd business day, never past the period
-- end; statutory requests as before). A day before it the store's owners are mailed once; this records that mail so
-- two workers or a rerun never send it twice.
alter table refund_requests add column seller_reminded_at timestamptz;
-- A portal cancel's open requests filed before this had no deadline: they get one now (the period end of their
-- subscription at the latest), so none stays `requested` past the period end.
update refund_requests rr
set auto_approve_at = s.current_period_end
from subscriptions s
where rr.subscription_id = s.id
  and rr.source = 'subscription_cancel'
  and rr.status in ('requested', 'held')
  and rr.auto_approve_at is null;
