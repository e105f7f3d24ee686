-- Profile, goal and body-stats writes and their JSON shapes, shared by onboarding and the
-- individual endpoints. Callers have validated the body with app.*_problems first.

-- Writes the profile fields of p_body (sex, age or birth date, height, activity) and the
-- optional settings (timezone, unit_system) and display_name.
create or replace function app.save_profile(p_user_id uuid, p_body jsonb)
returns void
language plpgsql
as $$
declare
  v_birth date := app.read_date(p_body, 'date_of_birth');
  -- Read before the update: Citus takes no call of a stable function (the readers) inside
  -- coalesce in a write.
  v_timezone text := app.read_text(p_body, 'timezone');
  v_unit_system text := app.read_text(p_body, 'unit_system');
begin
  update app.user_settings
     set timezone = coalesce(v_timezone, timezone),
         unit_system = coalesce(v_unit_system, unit_system),
         updated_at = now()
   where user_id = p_user_id;
  if p_body ? 'display_name' then
    perform auth.update_current_account(jsonb_build_object('display_name', p_body -> 'display_name'));
    perform auth.note_display_name_change(p_body);
  end if;
  -- updated_at from excluded (its default, now()): Citus takes no stable call in DO UPDATE SET.
  insert into app.user_profiles as p (user_id, sex, date_of_birth, age_years, age_recorded_on, height_cm,
                                      activity_level)
  values (p_user_id, app.read_text(p_body, 'sex'), v_birth,
          case when v_birth is null then app.read_integer(p_body, 'age_years') end,
          case when v_birth is null then app.user_today(p_user_id) end,
          app.read_number(p_body, 'height_cm'), app.read_text(p_body, 'activity_level'))
  on conflict (user_id) do update
    set sex = excluded.sex, date_of_birth = excluded.date_of_birth, age_years = excluded.age_years,
        age_recorded_on = excluded.age_recorded_on, height_cm = excluded.height_cm,
        activity_level = excluded.activity_level, updated_at = excluded.updated_at;
end
$$;

-- The one writer of the user's goal (onboarding, PUT /user/goals, the Liftbase import). With
-- p_replace the goal the user has is replaced, else it is kept and nothing is written.
-- Returns whether the goal was written. p_created_at is an import's, kept as the document
-- says; without one, now(), as the column's default.
create or replace function app.save_goal(p_user_id uuid, p_goal_type text, p_goal_rate_per_week numeric,
                                         p_replace boolean, p_created_at timestamptz default null)
returns boolean
language plpgsql
as $$
declare
  v_created_at timestamptz := coalesce(p_created_at, now());
begin
  -- updated_at from excluded (its default, now()): Citus takes no stable call in DO UPDATE SET.
  insert into app.goals as g (user_id, goal_type, goal_rate_per_week, created_at)
  values (p_user_id, p_goal_type, p_goal_rate_per_week, v_created_at)
  on conflict (user_id) do update
    set goal_type = excluded.goal_type, goal_rate_per_week = excluded.goal_rate_per_week,
        updated_at = excluded.updated_at
    where p_replace;
  return found;
end
$$;

-- Appends a body-stats entry; a height in it becomes the profile's height.
create or replace function app.add_body_metric(p_user_id uuid, p_body jsonb)
returns app.body_metrics
language plpgsql
as $$
declare
  v_entry app.body_metrics;
begin
  insert into app.body_metrics (user_id, client_id, recorded_at, weight_kg, body_fat_pct, height_cm, source)
  values (p_user_id, app.read_uuid(p_body, 'client_id'), coalesce(app.read_timestamp(p_body, 'recorded_at'), now()),
          app.read_number(p_body, 'weight_kg'), app.read_number(p_body, 'body_fat_pct'),
          app.read_number(p_body, 'height_cm'), coalesce(app.read_text(p_body, 'source'), 'manual'))
  returning * into v_entry;
  if v_entry.height_cm is not null then
    perform app.follow_latest_height(p_user_id);
  end if;
  return v_entry;
end
$$;

-- The latest weigh-in that holds a height (its id), or null.
create or replace function app.latest_height_weigh_in(p_user_id uuid)
returns bigint
language plpgsql
stable
as $$
begin
  return (select b.id from app.body_metrics as b
           where b.user_id = p_user_id and b.height_cm is not null
           order by b.recorded_at desc, b.id desc
           limit 1);
end
$$;

-- The profile's height is the latest weigh-in's that holds one: after a weigh-in with a
-- height is recorded, or the latest such one is corrected or deleted (a height set later
-- with PUT /user/profile is not undone by a correction of an older weigh-in). Without any,
-- the profile keeps its own.
create or replace function app.follow_latest_height(p_user_id uuid)
returns void
language plpgsql
as $$
declare
  v_height numeric;
begin
  select b.height_cm into v_height from app.body_metrics as b
   where b.user_id = p_user_id and b.id = app.latest_height_weigh_in(p_user_id);
  if v_height is not null then
    update app.user_profiles set height_cm = v_height, updated_at = now()
     where user_id = p_user_id and height_cm is distinct from v_height;
  end if;
end
$$;

-- Holds the user's weigh-ins for the rest of the transaction: two deletions at once (or a
-- deletion and a platform's) each count the weigh-ins left after the other's.
create or replace function app.lock_weigh_ins(p_user_id uuid)
returns void
language sql
as $$ select pg_advisory_xact_lock(hashtextextended('liftbase.weigh_ins:' || p_user_id::text, 0)) $$;

-- The user's weigh-in {id} of the path, or 404 metric_not_found.
create or replace function app.find_body_metric(p_user_id uuid, p_args jsonb)
returns app.body_metrics
language plpgsql
stable
as $$
declare
  v_entry app.body_metrics;
begin
  select b.* into v_entry from app.body_metrics as b
   where b.user_id = p_user_id and b.id = app.number_id_parameter(p_args, 'id');
  if v_entry.id is null then
    perform app.raise_error(404, 'metric_not_found', 'No such weigh-in.');
  end if;
  return v_entry;
end
$$;

-- Corrects a weigh-in with the members p_body holds (weight_kg, body_fat_pct and height_cm,
-- the last two cleared by null; recorded_at; source); the caller has checked them. The
-- daily weights follow through their triggers, the profile's height through
-- app.follow_latest_height.
create or replace function app.update_body_metric(p_user_id uuid, p_entry app.body_metrics, p_body jsonb)
returns app.body_metrics
language plpgsql
as $$
declare
  -- Read before the update: Citus takes no call of a stable function inside a write's case.
  v_weight numeric := app.read_number(p_body, 'weight_kg');
  v_body_fat numeric := app.read_number(p_body, 'body_fat_pct');
  v_height numeric := app.read_number(p_body, 'height_cm');
  v_recorded_at timestamptz := app.read_timestamp(p_body, 'recorded_at');
  v_source text := app.read_text(p_body, 'source');
  v_latest_before bigint := app.latest_height_weigh_in(p_user_id);
  v_latest_after bigint;
  v_entry app.body_metrics;
begin
  update app.body_metrics
     set weight_kg = coalesce(v_weight, weight_kg),
         body_fat_pct = case when p_body ? 'body_fat_pct' then v_body_fat else body_fat_pct end,
         height_cm = case when p_body ? 'height_cm' then v_height else height_cm end,
         recorded_at = coalesce(v_recorded_at, recorded_at),
         source = coalesce(v_source, source),
         updated_at = now()
   where user_id = p_user_id and id = p_entry.id
  returning * into v_entry;
  -- The profile follows when the latest height changed: this weigh-in's height, being or
  -- becoming the latest one; or another weigh-in's, now the latest (a time moved).
  v_latest_after := app.latest_height_weigh_in(p_user_id);
  if (p_body ? 'height_cm' and v_entry.id in (v_latest_before, v_latest_after))
     or v_latest_before is distinct from v_latest_after then
    perform app.follow_latest_height(p_user_id);
  end if;
  return v_entry;
end
$$;

-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
create or replace function app.profile_json(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select jsonb_build_object(
      'display_name', auth.current_account() ->> 'display_name',
      'sex', p.sex,
      'date_of_birth', p.date_of_birth,
      'age_years', app.age_on(p.date_of_birth, p.age_years, p.age_recorded_on, app.user_today(p_user_id)),
      'height_cm', p.height_cm,
      'activity_level', p.activity_level,
      'timezone', s.timezone,
      'unit_system', s.unit_system)
      from app.user_settings as s
      left join app.user_profiles as p on p.user_id = s.user_id
     where s.user_id = p_user_id
  );
end
$$;

-- PL/pgSQL, not SQL: a SQL function that reads a table is never inlined and plans its
-- statement again in every statement that calls it, where PL/pgSQL keeps the plan; and
-- Citus cannot plan a SQL function's statement with parameters (docs/scaling.md).
create or replace function app.goal_json(p_user_id uuid)
returns jsonb
language plpgsql
stable
as $$
begin
  return (
    select coalesce(
      (select jsonb_build_object('goal_type', g.goal_type, 'goal_rate_per_week', g.goal_rate_per_week,
                                 'created_at', g.created_at, 'updated_at', g.updated_at)
         from app.goals as g where g.user_id = p_user_id),
      'null'::jsonb)
  );
end
$$;

create or replace function app.body_metric_json(p_entry app.body_metrics)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_entry.id, 'recorded_at', p_entry.recorded_at, 'weight_kg', p_entry.weight_kg,
                            'body_fat_pct', p_entry.body_fat_pct, 'height_cm', p_entry.height_cm,
                            'source', p_entry.source, 'updated_at', p_entry.updated_at)
$$;

grant execute on function
  app.save_profile(uuid, jsonb),
  app.save_goal(uuid, text, numeric, boolean, timestamptz),
  app.add_body_metric(uuid, jsonb),
  app.latest_height_weigh_in(uuid),
  app.follow_latest_height(uuid),
  app.lock_weigh_ins(uuid),
  app.find_body_metric(uuid, jsonb),
  app.update_body_metric(uuid, app.body_metrics, jsonb),
  app.profile_json(uuid),
  app.goal_json(uuid),
  app.body_metric_json(app.body_metrics)
to liftbase_api;
