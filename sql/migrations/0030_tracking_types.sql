-- Tracking types: what a set of each exercise records (docs/training.md). Every catalog and
-- own exercise has one; sets gain a duration, a distance and an assistance load, and reps
-- and load become optional (which of them a set needs is the rule app.set_fit_problems,
-- sql/functions/app_sessions.sql, applied by every writer).

create domain app.tracking_type as text
  check (value in ('weight_reps', 'reps_only', 'bodyweight_reps', 'assisted_bodyweight', 'duration',
                   'weight_duration', 'distance_duration', 'weight_distance'));
comment on domain app.tracking_type is 'must be one of weight_reps, reps_only, bodyweight_reps, assisted_bodyweight, duration, weight_duration, distance_duration, weight_distance';
create domain app.duration_seconds as integer check (value between 1 and 86400);
comment on domain app.duration_seconds is 'must be a whole number of seconds from 1 to 86400 (24 hours)';
create domain app.distance_m as numeric check (value between 0.1 and 1000000);
comment on domain app.distance_m is 'must be between 0.1 and 1000000 metres (1,000 km)';
create domain app.assistance_kg as numeric check (value > 0 and value <= 2000);
comment on domain app.assistance_kg is 'must be more than 0 and at most 2000';

-- The reviewed exceptions to the category and equipment rule, matched on the lower-case
-- name with LIKE; the longest matching pattern wins.
create table app.tracking_type_exceptions (
  pattern       text primary key check (pattern = lower(pattern)),
  tracking_type app.tracking_type not null,
  reason        text not null
);
grant select on app.tracking_type_exceptions to liftbase_api;
insert into app.tracking_type_exceptions (pattern, tracking_type, reason) values
  ('%plank%', 'duration', 'a hold: timed'),
  ('%wall sit%', 'duration', 'a hold: timed'),
  ('%dead hang%', 'duration', 'a hold: timed'),
  ('%hollow hold%', 'duration', 'a hold: timed'),
  ('%l-sit%', 'duration', 'a hold: timed'),
  ('%farmer%', 'weight_distance', 'a carry: load over a distance'),
  ('%carry%', 'weight_distance', 'a carry: load over a distance'),
  ('%yoke%', 'weight_distance', 'a carry: load over a distance'),
  ('%sled%', 'weight_distance', 'sled work: load over a distance'),
  ('%prowler%', 'weight_distance', 'sled work: load over a distance'),
  ('tire flip', 'reps_only', 'the tire''s weight is rarely known'),
  ('ab wheel rollout', 'reps_only', 'no added load'),
  ('weighted pull-up', 'bodyweight_reps', 'bodyweight plus the added load'),
  ('weighted dip%', 'bodyweight_reps', 'bodyweight plus the added load'),
  ('assisted %', 'assisted_bodyweight', 'the machine or band helps: the load is assistance'),
  ('band-assisted %', 'assisted_bodyweight', 'the band helps: the load is assistance');

-- The rule: an exception by name first, then by category, then by equipment.
create function app.derived_tracking_type(p_name text, p_category text, p_equipment text)
returns app.tracking_type
language sql
stable
as $$
  select coalesce(
    (select x.tracking_type from app.tracking_type_exceptions as x
      where lower(p_name) like x.pattern order by length(x.pattern) desc, x.pattern limit 1),
    case
      when p_category = 'cardio' then 'distance_duration'
      when p_category = 'stretching' or p_equipment = 'foam_roll' then 'duration'
      when p_equipment = 'body_only' and p_category = 'plyometrics' then 'reps_only'
      when p_equipment = 'body_only' then 'bodyweight_reps'
      when p_equipment in ('bands', 'exercise_ball') then 'reps_only'
      when p_category = 'plyometrics' and p_equipment = 'other' then 'reps_only'
      else 'weight_reps'
    end)::app.tracking_type
$$;
grant execute on function app.derived_tracking_type(text, text, text) to liftbase_api;

alter table app.exercises add column tracking_type app.tracking_type not null default 'weight_reps';
alter table app.user_exercises add column tracking_type app.tracking_type not null default 'weight_reps';

alter table app.session_sets
  alter column reps drop not null,
  alter column weight_kg drop not null,
  add column duration_seconds app.duration_seconds,
  add column distance_m app.distance_m,
  add column assistance_kg app.assistance_kg;

-- Existing catalog exercises take the rule's type only when every set recorded for them
-- fits it unchanged: sets so far always hold reps and a load, which fit weight_reps and
-- bodyweight_reps (the load is the added load) and nothing else. Own exercises stay
-- weight_reps (their owners may change it).
update app.exercises as e
   set tracking_type = app.derived_tracking_type(e.name, e.category, e.equipment)
 where app.derived_tracking_type(e.name, e.category, e.equipment) = 'bodyweight_reps'
    or not exists (select from app.session_exercises as x where x.exercise_id = e.id);

-- app.set_problems takes the exercise's tracking type (sql/functions/app_sessions.sql).
drop function if exists app.set_problems(jsonb, text);
