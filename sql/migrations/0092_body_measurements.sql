-- Body measurements beyond the weigh-in (docs/health.md): a vocabulary of standard measures,
-- the account's own measurement types, and entries of either, each with a time and a
-- source; weigh-ins gain a source and may now be corrected and deleted.

-- Where a value came from: typed by the person, a smart scale's bridge, a health platform,
-- or an import.
create domain app.measurement_source as text
  check (value in ('manual', 'scale', 'apple_health', 'health_connect', 'import'));
comment on domain app.measurement_source is 'must be one of manual, scale, apple_health, health_connect, import';

alter table app.body_metrics
  add column source app.measurement_source not null default 'manual',
  add column updated_at timestamptz;
-- A mistyped weigh-in is corrected or removed (PATCH and DELETE /user/metrics/{id}); the
-- daily weights follow through the triggers of migration 0022, which already handle both.
grant update, delete on app.body_metrics to liftbase_api;

-- The standard measures, in the order a form lists them. Weight, height and body fat are a
-- weigh-in's values (app.body_metrics, whose domains check them): weigh_in_member names the
-- column; the others are measurement entries. Values are in the measure's unit; a client
-- that shows inches or pounds converts, as for weights everywhere in the API.
create table app.measures (
  id              text primary key check (id ~ '^[a-z_]{2,32}$'),
  name            text not null,
  unit            text not null check (unit in ('kg', 'cm', '%')),
  min_value       numeric not null,
  max_value       numeric not null,
  label_order     integer not null unique,
  weigh_in_member text unique check (weigh_in_member in ('weight_kg', 'height_cm', 'body_fat_pct')),
  check (min_value < max_value)
);
comment on table app.measures is
  'The standard body measures: unit and plausible range; weigh_in_member when a weigh-in holds it (docs/health.md)';
insert into app.measures (id, name, unit, min_value, max_value, label_order, weigh_in_member) values
  ('weight', 'Weight', 'kg', 30, 300, 1, 'weight_kg'),
  ('body_fat', 'Body fat', '%', 3, 60, 2, 'body_fat_pct'),
  ('height', 'Height', 'cm', 100, 250, 3, 'height_cm'),
  ('lean_mass', 'Lean mass', 'kg', 10, 200, 4, null),
  ('neck', 'Neck', 'cm', 20, 80, 5, null),
  ('shoulders', 'Shoulders', 'cm', 60, 200, 6, null),
  ('chest', 'Chest', 'cm', 50, 220, 7, null),
  ('waist', 'Waist', 'cm', 40, 250, 8, null),
  ('hips', 'Hips', 'cm', 50, 250, 9, null),
  ('left_upper_arm', 'Left upper arm', 'cm', 10, 80, 10, null),
  ('right_upper_arm', 'Right upper arm', 'cm', 10, 80, 11, null),
  ('left_forearm', 'Left forearm', 'cm', 10, 60, 12, null),
  ('right_forearm', 'Right forearm', 'cm', 10, 60, 13, null),
  ('left_thigh', 'Left thigh', 'cm', 20, 120, 14, null),
  ('right_thigh', 'Right thigh', 'cm', 20, 120, 15, null),
  ('left_calf', 'Left calf', 'cm', 15, 80, 16, null),
  ('right_calf', 'Right calf', 'cm', 15, 80, 17, null);
grant select on app.measures to liftbase_api;
revoke insert, update, delete on app.measures from liftbase_api;

create domain app.measurement_type_name as text check (length(btrim(value)) between 1 and 60);
comment on domain app.measurement_type_name is 'must be 1 to 60 characters';
create domain app.measurement_unit as text check (length(btrim(value)) between 1 and 16);
comment on domain app.measurement_unit is 'must be 1 to 16 characters';
create domain app.measurement_value as numeric
  check (value between -1000000 and 1000000);
comment on domain app.measurement_value is 'must be a number from -1000000 to 1000000';

-- The account's own measures (wger's "measurement categories"): a name, a unit, and an
-- optional range its entries must keep to.
create table app.measurement_types (
  user_id    uuid not null references auth.users (id) on delete cascade,
  id         uuid not null default gen_random_uuid(),
  client_id  uuid,
  name       app.measurement_type_name not null,
  unit       app.measurement_unit not null,
  min_value  app.measurement_value,
  max_value  app.measurement_value,
  created_at timestamptz not null default now(),
  updated_at timestamptz,
  primary key (user_id, id),
  constraint measurement_types_range check (min_value < max_value)
);
comment on table app.measurement_types is 'A person''s own body measures: name, unit, optional range (docs/health.md)';
create unique index measurement_types_client_key on app.measurement_types (user_id, client_id);
create unique index measurement_types_name_key on app.measurement_types (user_id, lower(name));
alter table app.measurement_types enable row level security;
alter table app.measurement_types force row level security;
create policy own_rows on app.measurement_types using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

-- One value of one measure at one time: a standard measure (not a weigh-in's) or a type of
-- the account's own, never both.
create table app.body_measurements (
  user_id     uuid not null references auth.users (id) on delete cascade,
  id          bigint generated always as identity,
  client_id   uuid,
  measure     text references app.measures (id),
  type_id     uuid,
  value       app.measurement_value not null,
  recorded_at timestamptz not null default now(),
  source      app.measurement_source not null default 'manual',
  created_at  timestamptz not null default now(),
  updated_at  timestamptz,
  primary key (user_id, id),
  foreign key (user_id, type_id) references app.measurement_types (user_id, id) on delete cascade,
  constraint body_measurements_one_measure check ((measure is null) <> (type_id is null))
);
comment on table app.body_measurements is
  'Body measurements: a standard measure or an own type, a value, when, and from where (docs/health.md)';
create unique index body_measurements_client_key on app.body_measurements (user_id, client_id);
-- The list (newest first) and a measure's series over a range.
create index body_measurements_latest_idx on app.body_measurements (user_id, recorded_at desc, id desc);
create index body_measurements_measure_idx on app.body_measurements (user_id, measure, recorded_at)
  where measure is not null;
create index body_measurements_type_idx on app.body_measurements (user_id, type_id, recorded_at)
  where type_id is not null;
alter table app.body_measurements enable row level security;
alter table app.body_measurements force row level security;
create policy own_rows on app.body_measurements using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));
