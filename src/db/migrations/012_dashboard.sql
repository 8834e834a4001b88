-- The seller dashboard (/dashboard): people who sign in for a store, their server-side sessions, and the audit log
-- of state-changing actions from the dashboard, the console API (owner token) and the operator CLI.

create table store_members (
  id text primary key,
  store_id text not null references stores(id),
  email text not null,
  name text not null,
  role text not null check (role in ('owner', 'admin', 'support', 'developer')),
  -- scrypt$N$r$p$salt$hash (base64url parts); see src/dashboard/members/password.ts
  password_hash text not null,
  created_at timestamptz not null,
  disabled_at timestamptz
);
-- E-mail is unique per store, compared case-insensitively (stored lowercased by the service).
create unique index store_members_store_email on store_members (store_id, email);
create index store_members_email on store_members (email);

create table dashboard_sessions (
  id text primary key,
  -- SHA-256 of the cookie's random token: a leaked table does not sign anyone in.
  token_hash text not null unique,
  member_id text not null references store_members(id),
  store_id text not null references stores(id),
  mode text not null default 'test' check (mode in ('live', 'test')),
  created_at timestamptz not null,
  expires_at timestamptz not null,
  last_seen_at timestamptz not null,
  ip text,
  user_agent text
);
create index dashboard_sessions_member on dashboard_sessions (member_id);
create index dashboard_sessions_expires on dashboard_sessions (expires_at);

create table audit_log (
  id text primary key,
  store_id text not null references stores(id),
  mode text check (mode in ('live', 'test')),
  actor_kind text not null check (actor_kind in ('member', 'owner_token', 'operator')),
  actor_id text,
  actor_name text,
  action text not null,
  target_type text,
  target_id text,
  details jsonb not null default '{}'::jsonb,
  ip text,
  user_agent text,
  created_at timestamptz not null
);
create index audit_log_store_created on audit_log (store_id, created_at desc, id desc);
create index audit_log_store_action on audit_log (store_id, action, created_at desc);
