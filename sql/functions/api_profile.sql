-- /profile/metrics/*: the latest health metrics (app.latest_health_metrics), their
-- acknowledgement, and their history.

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
    'version', app.field_problem(v_body, 'version', 'integer'),
    'metrics_computed_at', app.field_problem(v_body, 'metrics_computed_at', 'timestamptz')));
  if v_metrics.id is null then
    perform app.raise_error(404, 'metrics_not_found', 'No health metrics yet: complete onboarding first.');
  end if;
  if app.read_integer(v_body, 'version') <> v_metrics.version
     or app.read_timestamp(v_body, 'metrics_computed_at') <> v_metrics.computed_at then
    perform app.raise_error(409, 'metrics_changed', 'These are not the latest metrics: fetch them again.');
  end if;
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
  v_page record := app.page_parameters(p_args, 'number');
  v_limit integer := v_page.page_size;
  v_cursor bigint := v_page.cursor_number;
begin
  if v_cursor is not null
     and not exists (select from app.health_metrics as c where c.user_id = v_user_id and c.id = v_cursor) then
    perform app.raise_unknown_cursor();
  end if;
  return app.page(coalesce((
    select jsonb_agg(app.metrics_json(row(h.*)::app.health_metrics) order by h.computed_at desc, h.id desc)
      from (select * from app.health_metrics as m
             where m.user_id = v_user_id
               and (v_cursor is null or (m.computed_at, m.id) < (
                     select c.computed_at, c.id from app.health_metrics as c
                      where c.user_id = v_user_id and c.id = v_cursor))
             order by m.computed_at desc, m.id desc
             limit v_limit + 1) as h), '[]'), v_limit);
end
$$;
