-- A refunded withdrawal ends a subscription (issue 29): `withdrawn` (청약철회: an approved statutory refund request of
-- the current period's order, or a refund of that whole order inside its withdrawal window) and `refunded` (the seller
-- refunded the whole current-period order after its window). See src/subscriptions/withdrawal.ts.
alter table subscriptions drop constraint if exists subscriptions_end_reason_check;
alter table subscriptions add constraint subscriptions_end_reason_check
  check (end_reason in ('canceled', 'payment_failed', 'price_change_declined', 'withdrawn', 'refunded'));
