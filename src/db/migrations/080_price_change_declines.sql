-- A buyer's explicit refusal of a plan price increase in the portal (issue 38 item 9: the notice offered only
-- "accept", so declining was doing nothing). Declining is recorded with the subscription's time; its outcome is the
-- one the renewal already applies to an increase without consent: at `decide_by` the subscription ends, nothing is
-- charged (`endReason: price_change_declined`). Agreeing later, before that date, clears it.
alter table subscription_price_changes add column declined_at timestamptz;
