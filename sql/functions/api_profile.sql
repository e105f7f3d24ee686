-- Health metrics: the latest by computed_at (never filtered by date, so they are found the
-- moment onboarding commits, whatever the time zones), acknowledgement, and history.

-- Sentences that quote the user's own numbers.
create or replace function app.metrics_explanations(p_metrics app.health_metrics)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'bmi', format('BMI %s = %s kg / (%s m)².', p_metrics.bmi, i ->> 'weight_kg',
                  round((i ->> 'height_cm')::numeric / 100, 2)),
    'bmr', case i ->> 'bmr_formula'
      when 'katch_mcardle' then format(
        'Katch-McArdle: 370 + 21.6 × %s kg lean mass (%s kg at %s %% body fat) = %s kcal a day at rest.',
        round((i ->> 'weight_kg')::numeric * (1 - (i ->> 'body_fat_pct')::numeric / 100), 1),
        i ->> 'weight_kg', i ->> 'body_fat_pct', p_metrics.bmr)
      else format(
        'Mifflin-St Jeor for a %s-year-old %s, %s cm and %s kg: %s kcal a day at rest.',
        i ->> 'age_years', i ->> 'sex', i ->> 'height_cm', i ->> 'weight_kg', p_metrics.bmr)
      end,
    'tdee', format('BMR %s kcal × %s for a %s activity level = %s kcal a day.',
                   p_metrics.bmr, i ->> 'activity_factor', replace(i ->> 'activity_level', '_', ' '), p_metrics.tdee))
    from (select p_metrics.inputs as i) as inputs
$$;

create or replace function app.latest_health_metrics(p_user_id uuid)
returns app.health_metrics
language sql
stable
as $$
  select h.* from app.health_metrics as h
   where h.user_id = p_user_id
   order by h.computed_at desc, h.id desc
   limit 1
$$;

create or replace function api.metrics_today(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_metrics app.health_metrics := app.latest_health_metrics(v_user_id);
  v_ack app.metrics_acknowledgements;
begin
  if v_metrics.id is null then
    perform app.raise_error(404, 'metrics_not_found', 'No health metrics yet: complete onboarding first.');
  end if;
  select a.* into v_ack from app.metrics_acknowledgements as a
   where a.user_id = v_metrics.user_id and a.health_metric_id = v_metrics.id;
  return jsonb_build_object(
    'metrics', app.metrics_json(v_metrics),
    'explanations', app.metrics_explanations(v_metrics),
    'acknowledged', v_ack.health_metric_id is not null,
    'acknowledgement', case when v_ack.health_metric_id is not null then
      jsonb_build_object('acknowledged_at', v_ack.acknowledged_at, 'version', v_ack.version) else null end);
end
$$;

-- POST /profile/metrics/acknowledge {version, metrics_computed_at}: acknowledges the
-- latest metrics; repeating it returns the first acknowledgement; anything but the latest
-- is 409 metrics_changed.
create or replace function api.metrics_acknowledge(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_metrics app.health_metrics := app.latest_health_metrics(v_user_id);
  v_ack app.metrics_acknowledgements;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'version', case when jsonb_typeof(v_body -> 'version') is distinct from 'number' then 'is required (a number)' end,
    'metrics_computed_at', case when v_body ->> 'metrics_computed_at' is null then 'is required' end));
  if v_metrics.id is null then
    perform app.raise_error(404, 'metrics_not_found', 'No health metrics yet: complete onboarding first.');
  end if;
  begin
    if (v_body ->> 'version')::numeric <> v_metrics.version
       or (v_body ->> 'metrics_computed_at')::timestamptz <> v_metrics.computed_at then
      perform app.raise_error(409, 'metrics_changed', 'These are not the latest metrics: fetch them again.');
    end if;
  exception when invalid_datetime_format or datetime_field_overflow then
    perform app.raise_if_invalid(jsonb_build_object('metrics_computed_at', 'must be a timestamp'));
  end;
  insert into app.metrics_acknowledgements (user_id, health_metric_id, version)
  values (v_user_id, v_metrics.id, v_metrics.version)
  on conflict (user_id, health_metric_id) do nothing;
  select a.* into v_ack from app.metrics_acknowledgements as a
   where a.user_id = v_user_id and a.health_metric_id = v_metrics.id;
  return jsonb_build_object('acknowledged', true, 'acknowledgement',
    jsonb_build_object('acknowledged_at', v_ack.acknowledged_at, 'version', v_ack.version));
end
$$;

create or replace function api.metrics_history(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_limit integer := app.page_limit(p_args);
  v_cursor bigint := app.page_cursor(p_args);
begin
  return app.page(coalesce((
    select jsonb_agg(app.metrics_json(h) order by h.computed_at desc, h.id desc)
      from (select * from app.health_metrics as m
             where m.user_id = v_user_id
               and (v_cursor is null or (m.computed_at, m.id) < (
                     select c.computed_at, c.id from app.health_metrics as c where c.user_id = v_user_id and c.id = v_cursor))
             order by m.computed_at desc, m.id desc
             limit v_limit + 1) as h), '[]'), v_limit);
end
$$;

-- The daily job (`liftbase metrics recompute`): recomputes each user's targets and metrics
-- (ages change) and appends only when a value changed. Returns how many users changed.
-- Runs as the owner through the CLI, acting as each user in turn so RLS still applies.
create or replace function app.recompute_targets(p_user_ids uuid[])
returns integer
language plpgsql
as $$
declare
  v_user_id uuid;
  v_changed integer := 0;
begin
  foreach v_user_id in array p_user_ids loop
    perform auth.act_as(v_user_id);
    if app.record_targets(v_user_id, 'recompute', true) is not null then
      v_changed := v_changed + 1;
    end if;
  end loop;
  perform set_config('liftbase.user_id', '', true);
  return v_changed;
end
$$;

grant execute on function
  app.metrics_explanations(app.health_metrics),
  app.latest_health_metrics(uuid)
to liftbase_api;
