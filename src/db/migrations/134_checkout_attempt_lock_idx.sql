-- migration: no-transaction
-- The sweep for payments whose confirmation lock ran out (src/checkout/complete-repo.ts findStaleAttempts) reads
-- sessions by `attempt_locked_until`. Its index (002's checkout_sessions_inflight_idx) was partial on `payment is not
-- null`, which every session meets: a new session's `payment` is JSON `null`, not SQL NULL, so the index held one
-- entry per session ever made (with a NULL key) and every checkout wrote it (issue 43's profile of the checkout's
-- statement). Only a session in the middle of a payment has a lock time, so the index now holds only those; the sweep's
-- `attempt_locked_until <= $now` implies the new predicate, so the planner still uses it.
-- Built CONCURRENTLY, outside a transaction: checkout_sessions takes every checkout's writes. A failed build's invalid
-- index is dropped first, and the old index only once the new one is valid.
drop index concurrently if exists checkout_sessions_attempt_lock_idx;
create index concurrently checkout_sessions_attempt_lock_idx on checkout_sessions (attempt_locked_until) where attempt_locked_until is not null;
drop index concurrently if exists checkout_sessions_inflight_idx;
