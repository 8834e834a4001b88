-- License reads for POST /v1/licenses/verify are cached in each server process for a moment (LICENSE_CACHE_MS).
-- Every change that can alter a verify answer notifies all processes at commit, whoever makes it: a license row
-- updated or deleted (revocation, re-issue, activation of a pending license, expiry moved by a renewal or a refund),
-- or an activation added, removed or deactivated (the live activation count). The payload is the license id.
-- A verify that only records last_verified_at changes nothing cached and notifies nobody.
create or replace function commerce_license_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('commerce_license_changed', old.id);
  else
    perform pg_notify('commerce_license_changed', new.id);
  end if;
  return null;
end
$$;

create or replace function commerce_license_activation_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('commerce_license_changed', old.license_id);
  else
    perform pg_notify('commerce_license_changed', new.license_id);
  end if;
  return null;
end
$$;

create trigger licenses_changed_notify
  after update or delete on licenses
  for each row execute function commerce_license_changed();

create trigger license_activations_changed_notify
  after insert or delete or update of deactivated_at, license_id on license_activations
  for each row execute function commerce_license_activation_changed();
