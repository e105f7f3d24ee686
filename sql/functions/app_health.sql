-- Samples from Apple Health and Health Connect (docs/health.md): each sample read and
-- checked, its unit made the type's, the batch written by sample id, and the days it
-- touched computed again from their samples, the winning source's for the types that add up.

-- The type's unit, and the factor from each unit an app may send for it.
create or replace function app.health_unit_factor(p_type text, p_unit text)
returns numeric
language sql
immutable
as $$
  select case
    when p_type = 'steps' and p_unit = 'count' then 1
    when p_type in ('active_energy', 'resting_energy') and p_unit = 'kcal' then 1
    when p_type in ('active_energy', 'resting_energy') and p_unit = 'kJ' then 1 / 4.184
    when p_type = 'sleep' and p_unit = 'min' then 1
    when p_type = 'sleep' and p_unit = 'h' then 60
    when p_type = 'sleep' and p_unit = 's' then 1 / 60.0
    when p_type = 'resting_heart_rate' and p_unit in ('bpm', 'count/min') then 1
    when p_type = 'heart_rate_variability' and p_unit = 'ms' then 1
    when p_type = 'weight' and p_unit = 'kg' then 1
    when p_type = 'weight' and p_unit = 'lb' then 0.45359237
    when p_type = 'body_fat' and p_unit = '%' then 1
  end
$$;

-- What each type's value may be, in its unit: wider than any person, narrower than a typo.
create or replace function app.health_value_problem(p_type text, p_value numeric)
returns text
language sql
immutable
as $$
  select case
    when p_type = 'steps' and (p_value < 0 or p_value > 200000 or p_value <> trunc(p_value))
      then 'must be a whole number of steps from 0 to 200000'
    when p_type in ('active_energy', 'resting_energy') and (p_value < 0 or p_value > 20000)
      then 'must be from 0 to 20000 kcal'
    when p_type = 'sleep' and (p_value < 0 or p_value > 1440) then 'must be from 0 to 1440 minutes'
    when p_type = 'resting_heart_rate' and (p_value < 20 or p_value > 250) then 'must be from 20 to 250 bpm'
    when p_type = 'heart_rate_variability' and (p_value < 0 or p_value > 1000) then 'must be from 0 to 1000 ms'
    when p_type = 'weight' and (p_value < 20 or p_value > 400) then 'must be from 20 to 400 kg'
    when p_type = 'body_fat' and (p_value < 1 or p_value > 75) then 'must be from 1 to 75 %'
  end
$$;

-- The units each type takes, for the message of a unit it does not.
create or replace function app.health_units(p_type text)
returns text
language sql
immutable
as $$
  select case p_type
    when 'steps' then 'count' when 'active_energy' then 'kcal or kJ' when 'resting_energy' then 'kcal or kJ'
    when 'sleep' then 'min, h or s' when 'resting_heart_rate' then 'bpm or count/min'
    when 'heart_rate_variability' then 'ms' when 'weight' then 'kg or lb' when 'body_fat' then '%' end
$$;

-- What makes a batch's sample malformed, by member (null when it is well formed): the
-- shape the contract gives it. A malformed sample is a client's mistake and refuses the
-- batch (422); a well-formed one the server cannot take (app.health_sample_read) is a
-- sample of another app's making and is only left out.
create or replace function app.health_sample_problems(p_sample jsonb)
returns jsonb
language plpgsql
stable
as $$
begin
  if jsonb_typeof(p_sample) is distinct from 'object' then
    return jsonb_build_object('', 'must be an object');
  end if;
  return nullif(jsonb_strip_nulls(jsonb_build_object(
    'sample_id', coalesce(app.field_problem(p_sample, 'sample_id', 'text'),
                          case when length(p_sample ->> 'sample_id') not between 1 and 200
                               then 'must be 1 to 200 characters' end),
    'type', app.field_problem(p_sample, 'type', 'text'),
    'value', case when p_sample ? 'value' then app.field_problem(p_sample, 'value', 'numeric') end,
    'unit', case when p_sample ? 'unit' then app.field_problem(p_sample, 'unit', 'text') end,
    'start', app.field_problem(p_sample, 'start', 'app.timestamp_value'),
    'end', app.field_problem(p_sample, 'end', 'app.timestamp_value'),
    'source_app', app.field_problem(p_sample, 'source_app', 'text', false),
    'device', app.field_problem(p_sample, 'device', 'text', false))), '{}');
end
$$;

-- One well-formed sample of a batch read: the problem that keeps it out (member: problem),
-- or the sample in the type's unit {sample_id, type, value, start_at, end_at, source_app,
-- device}. A sleep sample without a value is as long as it lasted.
create or replace function app.health_sample_read(p_sample jsonb)
returns jsonb
language plpgsql
stable
as $$
declare
  v_type text := p_sample ->> 'type';
  v_start timestamptz := app.read_timestamp(p_sample, 'start');
  v_end timestamptz := app.read_timestamp(p_sample, 'end');
  v_factor numeric;
  v_value numeric;
begin
  if app.health_units(v_type) is null then
    return jsonb_build_object('problem', jsonb_build_object('type',
      obj_description('app.health_sample_type'::regtype, 'pg_type')));
  end if;
  v_factor := app.health_unit_factor(v_type, coalesce(p_sample ->> 'unit', case when v_type = 'sleep' then 'min' end));
  if v_end < v_start then
    return jsonb_build_object('problem', jsonb_build_object('end', 'must not be before start'));
  elsif v_end > now() + app.clock_skew() then
    return jsonb_build_object('problem', jsonb_build_object('end', 'must not be later than now (5 minutes of clock skew allowed)'));
  elsif v_factor is null then
    return jsonb_build_object('problem', jsonb_build_object('unit', format('must be %s for %s', app.health_units(v_type), v_type)));
  elsif (p_sample -> 'value' is null or p_sample -> 'value' = 'null') and v_type <> 'sleep' then
    return jsonb_build_object('problem', jsonb_build_object('value', 'is required'));
  elsif length(p_sample ->> 'source_app') > 200 or length(p_sample ->> 'device') > 200 then
    return jsonb_build_object('problem', 'source_app and device must be at most 200 characters');
  end if;
  v_value := trim_scale(round(coalesce(app.read_number(p_sample, 'value'), extract(epoch from v_end - v_start) / 60)
                              * v_factor, 4));
  if app.health_value_problem(v_type, v_value) is not null then
    return jsonb_build_object('problem', jsonb_build_object('value', app.health_value_problem(v_type, v_value)));
  end if;
  return jsonb_build_object('sample_id', p_sample ->> 'sample_id', 'type', v_type, 'value', v_value,
                            'start_at', v_start, 'end_at', v_end, 'source_app', p_sample ->> 'source_app',
                            'device', p_sample ->> 'device');
end
$$;

-- Holds the user's health samples for the rest of the transaction: batches and imports
-- of one user take turns (the days each computes must see the other's samples).
create or replace function app.lock_health_samples(p_user_id uuid)
returns void
language sql
as $$ select pg_advisory_xact_lock(hashtextextended('liftbase.health_samples:' || p_user_id::text, 0)) $$;

-- The days of p_types/p_days (pairs) computed again from their samples (app.health_days):
-- for steps, energy and sleep the source with the most that day wins alone (a phone and a
-- watch both count the same steps; adding them would count them twice); heart rate and
-- variability are the day's mean over every source; weight and body fat the day's last.
-- The days are read first and written from a row of the user's with an upsert clause: on
-- Citus an insert otherwise goes through COPY, which row-level security refuses.
create or replace function app.refresh_health_days(p_user_id uuid, p_types text[], p_days date[])
returns void
language plpgsql
as $$
declare
  -- Every day of p_days for every type of p_types: a superset of the pairs, as cheap to read
  -- through the index (user_id, type, day) as the pairs, and computed again to the same
  -- value where nothing changed.
  v_types app.health_sample_type[] := array(select distinct t::app.health_sample_type from unnest(p_types) as t);
  v_days date[] := array(select distinct y from unnest(p_days) as y);
  v_rows jsonb;
begin
  select coalesce(jsonb_agg(jsonb_build_object('type', w.type, 'day', w.day, 'value', w.value, 'source', w.source,
                                               'samples', w.samples)), '[]')
    into v_rows
    from (
      -- Additive types: each source's total; the largest wins.
      (select distinct on (s.type, s.day) s.type, s.day, sum(s.value) as value,
              concat_ws(' / ', s.source_app, s.device) as source, count(*)::integer as samples
         from app.health_samples as s
        where s.user_id = p_user_id and s.type = any (v_types) and s.day = any (v_days)
          and s.type in ('steps', 'active_energy', 'resting_energy', 'sleep')
        group by s.type, s.day, concat_ws(' / ', s.source_app, s.device)
        order by s.type, s.day, sum(s.value) desc, concat_ws(' / ', s.source_app, s.device))
      union all
      (select s.type, s.day, round(avg(s.value), 1), 'all', count(*)::integer
         from app.health_samples as s
        where s.user_id = p_user_id and s.type = any (v_types) and s.day = any (v_days)
          and s.type in ('resting_heart_rate', 'heart_rate_variability')
        group by s.type, s.day)
      union all
      (select distinct on (s.type, s.day) s.type, s.day, s.value, concat_ws(' / ', s.source_app, s.device), 1
         from app.health_samples as s
        where s.user_id = p_user_id and s.type = any (v_types) and s.day = any (v_days)
          and s.type in ('weight', 'body_fat')
        order by s.type, s.day, s.end_at desc, s.id desc)) as w;
  delete from app.health_days as d where d.user_id = p_user_id and d.type = any (v_types) and d.day = any (v_days);
  insert into app.health_days (user_id, type, day, value, source, samples)
  select u.user_id, w.type, w.day, w.value, w.source, w.samples
    from app.user_settings as u
   cross join jsonb_to_recordset(v_rows) as w (type text, day date, value numeric, source text, samples integer)
   where u.user_id = p_user_id
  on conflict do nothing;
end
$$;

-- Weight samples are weigh-ins too (a smart scale writes to Apple Health or Health Connect,
-- and targets, the weight trend and the expenditure estimate read weigh-ins): each new or
-- changed one within a weigh-in's range is the weigh-in whose client_id is the UUID of its
-- platform and sample id (so the next batch finds it), source the platform; a deleted one
-- (or one changed to outside the range) deletes it, unless it is the account's only
-- weigh-in (targets are computed from it, as DELETE /user/metrics/{id} keeps it). Then the
-- targets and metrics are recomputed when they change. p_written: the sample ids of the
-- batch that were written.
create or replace function app.weigh_ins_from_health(p_user_id uuid, p_platform text, p_ids text[], p_types text[],
  p_values numeric[], p_ends timestamptz[], p_written text[], p_deleted text[])
returns void
language plpgsql
as $$
declare
  v_min numeric;
  v_max numeric;
  v_weigh_ins jsonb;
  v_outside text[];
  v_gone bigint[];
begin
  -- The weigh-ins read first, then inserted from a row of the user's with an upsert clause
  -- (on Citus an insert from a list otherwise goes through COPY, which row-level security
  -- refuses).
  perform app.lock_weigh_ins(p_user_id);
  -- A weigh-in's range is the weight measure's (app.measures, which a test holds to the
  -- weigh-in's domain); a written weight sample outside it has no weigh-in (any it had goes).
  select m.min_value, m.max_value into v_min, v_max from app.measures as m where m.id = 'weight';
  v_weigh_ins := (select coalesce(jsonb_agg(jsonb_build_object('client_id', md5(p_platform || ':' || s.sample_id)::uuid,
                                                                'recorded_at', s.end_at, 'weight_kg', s.value)), '[]')
                    from unnest(p_ids, p_types, p_values, p_ends) as s (sample_id, type, value, end_at)
                   where s.type = 'weight' and s.value between v_min and v_max and s.sample_id = any (p_written));
  v_outside := array(select s.sample_id from unnest(p_ids, p_types, p_values) as s (sample_id, type, value)
                      where s.type = 'weight' and s.value not between v_min and v_max and s.sample_id = any (p_written));
  insert into app.body_metrics as b (user_id, client_id, recorded_at, weight_kg, source)
  select u.user_id, w.client_id, w.recorded_at, w.weight_kg, p_platform
    from app.user_settings as u
   cross join jsonb_to_recordset(v_weigh_ins) as w (client_id uuid, recorded_at timestamptz, weight_kg numeric)
   where u.user_id = p_user_id
  on conflict (user_id, client_id) do update
    set weight_kg = excluded.weight_kg, recorded_at = excluded.recorded_at, updated_at = excluded.created_at;
  select coalesce(array_agg(b.id order by b.recorded_at desc, b.id desc), '{}') into v_gone
    from app.body_metrics as b
   where b.user_id = p_user_id
     and b.client_id = any (array(select md5(p_platform || ':' || d)::uuid from unnest(p_deleted || v_outside) as d));
  if cardinality(v_gone) > 0
     and cardinality(v_gone) >= (select count(*) from app.body_metrics as b where b.user_id = p_user_id) then
    v_gone := v_gone[2:];
  end if;
  delete from app.body_metrics as b where b.user_id = p_user_id and b.id = any (v_gone);
  perform app.record_targets(p_user_id, 'metrics', true);
end
$$;

grant execute on function
  app.weigh_ins_from_health(uuid, text, text[], text[], numeric[], timestamptz[], text[], text[]),
  app.health_unit_factor(text, text),
  app.health_value_problem(text, numeric),
  app.health_units(text),
  app.lock_health_samples(uuid),
  app.health_sample_problems(jsonb),
  app.health_sample_read(jsonb),
  app.refresh_health_days(uuid, text[], date[])
to liftbase_api;
