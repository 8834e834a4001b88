-- Second factors for dashboard members (issue 33): an authenticator app (TOTP, RFC 6238), one-time recovery codes and
-- passkeys (WebAuthn); the store's policy on who must have one and the refund amount above which a refund asks for it
-- again; the session's second-factor state.

-- One authenticator app per member. The secret is sealed with the master key (AES-256-GCM, src/platform/crypto.ts).
-- confirmed_at is null while the member has been shown the secret but not yet typed a code from it.
create table member_totp (
  member_id text primary key references store_members(id),
  secret_sealed text not null,
  created_at timestamptz not null,
  confirmed_at timestamptz,
  -- the last 30-second step a code was accepted for: a code of that step or an earlier one is never accepted again
  last_step bigint
);

-- Ten one-time codes per member, stored as SHA-256 hashes; a used code keeps its row (used_at) until the set is replaced.
create table member_recovery_codes (
  id text primary key,
  member_id text not null references store_members(id),
  code_hash text not null,
  created_at timestamptz not null,
  used_at timestamptz
);
create index member_recovery_codes_member on member_recovery_codes (member_id);

create table member_passkeys (
  id text primary key,
  member_id text not null references store_members(id),
  store_id text not null references stores(id),
  -- the credential id (base64url) the authenticator answers with; one credential belongs to one member
  credential_id text not null unique,
  -- COSE public key, base64url
  public_key text not null,
  sign_count bigint not null default 0,
  transports jsonb not null default '[]'::jsonb,
  name text not null,
  device_type text,
  backed_up boolean not null default false,
  created_at timestamptz not null,
  last_used_at timestamptz
);
create index member_passkeys_member on member_passkeys (member_id);

-- A WebAuthn challenge handed to a browser, used at most once (deleted when answered) and only until expires_at.
create table webauthn_challenges (
  id text primary key,
  challenge text not null,
  -- 'register' (a signed-in member adds a passkey), 'second_factor' (sign-in or step-up), 'sign_in' (passwordless)
  purpose text not null check (purpose in ('register', 'second_factor', 'sign_in')),
  -- the session that asked (register, second_factor); null for a passwordless sign-in
  session_id text,
  expires_at timestamptz not null
);
create index webauthn_challenges_expires on webauthn_challenges (expires_at);

-- The store's security settings, set by an owner. No row: nobody is required to have a second factor, no refund asks.
create table store_security (
  store_id text primary key references stores(id),
  -- who must have a second factor: 'none', 'admins' (owners and admins), 'everyone'
  two_factor_policy text not null default 'none' check (two_factor_policy in ('none', 'admins', 'everyone')),
  -- refunds above this many won ask for the second factor again (null: none do)
  refund_step_up_amount bigint check (refund_step_up_amount is null or refund_step_up_amount >= 0),
  updated_at timestamptz not null
);

-- A session signed in with a password whose member has a second factor waits for it (second_factor_pending); the
-- time the second factor was last given opens the step-up window.
alter table dashboard_sessions add column second_factor_pending boolean not null default false;
alter table dashboard_sessions add column second_factor_at timestamptz;
