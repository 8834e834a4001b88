-- The verify cache also remembers, for a moment, that a key is NOT a license of a product (a negative entry, so a
-- flood of unknown keys does not reach the database on every call). Issuing a license must end that in every
-- process: an inserted license notifies too (the same channel and payload as 013's; a process that sees any license
-- change drops all its negative entries, since the payload names the license, not the key).
create trigger licenses_inserted_notify
  after insert on licenses
  for each row execute function commerce_license_changed();
