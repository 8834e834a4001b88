-- The key check value of the master key the secrets in this database are sealed with (issue 30): an HMAC under a key
-- derived from it (src/platform/crypto.ts masterKeyCheckValue), revealing nothing of the key. Written by the first
-- start; a later start, CLI command or `commerce restore` with another key is refused instead of sealing new secrets
-- under a second key or leaving the restored ones unreadable. It is in every backup, being in the database.
create table master_key_check (
  id smallint primary key default 1 check (id = 1),
  check_value text not null,
  created_at timestamptz not null default now()
);
