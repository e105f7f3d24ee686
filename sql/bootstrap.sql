-- Liftbase bootstrap: run by `liftbase migrate` before any migration, as the login named
-- in DATABASE_URL. Idempotent: roles and schemas are created only when missing, so a login
-- without CREATEROLE works once an operator has made the roles (see docs/operations.md).

do $bootstrap$
begin
  -- Roles are cluster-wide: create them only when missing.
  if not exists (select from pg_roles where rolname = 'liftbase_owner') then
    create role liftbase_owner nologin;
  end if;
  if not exists (select from pg_roles where rolname = 'liftbase_api') then
    create role liftbase_api nologin;
  end if;
  if not exists (select from pg_roles where rolname = 'liftbase_reporter') then
    create role liftbase_reporter nologin;
  end if;
  -- Owns the reporting views: the one role whose row-level security policies read every
  -- user's rows (select only; migration 0014). NOINHERIT and a member of nothing, and no
  -- other Liftbase role is a member of it, so neither the API role nor any SECURITY DEFINER
  -- function (those belong to liftbase_owner) ever acts with its rights.
  if not exists (select from pg_roles where rolname = 'liftbase_reporting_owner') then
    create role liftbase_reporting_owner nologin noinherit;
  end if;

  -- On Citus the coordinator opens its connections to the workers as the current role:
  -- migrations run as liftbase_owner, requests as liftbase_api, reports as the reporting
  -- roles, so each must be able to log in (Citus copies roles to every node). They get no
  -- password here: who may log in as them is the workers' pg_hba.conf and the
  -- coordinator's credentials for them (docs/scaling.md). On a single node they stay NOLOGIN.
  if exists (select from pg_extension where extname = 'citus') then
    alter role liftbase_owner login;
    alter role liftbase_api login;
    alter role liftbase_reporter login;
    alter role liftbase_reporting_owner login;
  end if;

  -- The migrating login acts as the owner; the serving login switches to the API role.
  if not pg_has_role(current_user, 'liftbase_owner', 'member') then
    execute format('grant liftbase_owner to %I', current_user);
  end if;
  if not pg_has_role(current_user, 'liftbase_api', 'member') then
    execute format('grant liftbase_api to %I', current_user);
  end if;
  -- sql/functions/reporting_views.sql switches to it (SET ROLE checks the login, not the
  -- current role) to create the views it owns. Unless the login is NOINHERIT this lets it
  -- read every user's rows through the reporting policies: the migrating login is an
  -- administrator's (it can alter every table as the owner), never the server's
  -- (docs/reporting.md).
  if not pg_has_role(current_user, 'liftbase_reporting_owner', 'member') then
    execute format('grant liftbase_reporting_owner to %I', current_user);
  end if;

  -- The owner creates trusted extensions (pgcrypto, pg_trgm) from migrations.
  if not has_database_privilege('liftbase_owner', current_database(), 'create') then
    execute format('grant create on database %I to liftbase_owner', current_database());
  end if;
end
$bootstrap$;

create schema if not exists app authorization liftbase_owner;
create schema if not exists api authorization liftbase_owner;
create schema if not exists auth authorization liftbase_owner;
create schema if not exists reporting authorization liftbase_owner;
create schema if not exists liftbase_meta authorization liftbase_owner;

set role liftbase_owner;

create table if not exists liftbase_meta.migrations (
  name        text primary key,
  kind        text not null check (kind in ('versioned', 'repeatable')),
  checksum    text not null,
  applied_at  timestamptz not null default now(),
  duration_ms numeric(12, 3) not null
);

-- /readyz (served as the API role) compares this table with the files it ships with.
grant usage on schema liftbase_meta to liftbase_api;
grant select on liftbase_meta.migrations to liftbase_api;

reset role;
