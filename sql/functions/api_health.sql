-- /health/*: samples from Apple Health and Health Connect, and each day's value per type
-- (docs/health.md).

-- POST /health/samples {platform, samples: [...], deleted: [sample_id...]}: up to 5,000
-- samples and 5,000 deletions of one platform, by the platform's sample id. A sample that
-- is new is written, one that changed is updated, one as held is left. A malformed sample
-- (not the contract's shape: a client's mistake) refuses the batch with 422; a well-formed
-- one this server cannot take (a type or unit it does not know, a value out of range) is
-- left out and named in `rejected`, so that one odd sample of another app never holds back
-- the rest. The days the batch touched are computed again, and weight samples
-- are weigh-ins too (app.weigh_ins_from_health), in the same transaction. Answers {new,
-- changed, unchanged, deleted, rejected}.
create or replace function api.health_samples_sync(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_zone text := app.user_timezone(v_user_id);
  v_platform text;
  v_read jsonb;
  v_rejected jsonb;
  v_ids text[];
  v_types text[];
  v_values numeric[];
  v_starts timestamptz[];
  v_ends timestamptz[];
  v_apps text[];
  v_devices text[];
  v_days date[];
  v_new text[];
  v_changed text[];
  v_touched_types text[] := '{}';
  v_touched_days date[] := '{}';
  v_deleted_types text[];
  v_deleted_days date[];
  v_deleted integer;
  v_deleted_ids text[];
  v_batch jsonb;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'platform', app.field_problem(v_body, 'platform', 'app.health_platform'),
    'samples', case when jsonb_typeof(v_body -> 'samples') not in ('array', 'null') then 'must be a list'
                    when jsonb_array_length(coalesce(v_body -> 'samples', '[]')) > 5000
                      then 'must hold at most 5000 samples (send more in further calls)' end,
    'deleted', coalesce(app.input_problem(v_body -> 'deleted', 'string[]'),
                        case when jsonb_array_length(coalesce(v_body -> 'deleted', '[]')) > 5000
                             then 'must hold at most 5000 sample ids' end)));
  -- Malformed samples refuse the batch, each named by its place and member.
  perform app.raise_if_invalid(coalesce((
    select jsonb_object_agg(format('samples[%s]', x.n - 1) || case when p.key = '' then '' else '.' || p.key end, p.value)
      from jsonb_array_elements(v_body -> 'samples') with ordinality as x (s, n)
     cross join lateral jsonb_each(app.health_sample_problems(x.s)) as p
     where jsonb_typeof(v_body -> 'samples') = 'array'), '{}'));
  v_platform := app.read_text(v_body, 'platform');
  -- Read before the writes: Citus takes no call of a stable function in a write.
  v_deleted_ids := coalesce(app.read_text_list(v_body, 'deleted'), '{}');
  -- One batch of the user's at a time (a phone's background delivery and its foreground
  -- sync may overlap): each computes its days from the samples the other has committed.
  perform app.lock_health_samples(v_user_id);

  -- Each sample read: of a sample id repeated in the batch, the last one only.
  select coalesce(jsonb_agg(jsonb_build_object('index', x.n - 1, 'read', app.health_sample_read(x.s)) order by x.n), '[]')
    into v_read
    from (select distinct on (e.s ->> 'sample_id') e.s, e.n
            from jsonb_array_elements(coalesce(v_body -> 'samples', '[]')) with ordinality as e (s, n)
           order by e.s ->> 'sample_id', e.n desc) as x;
  select coalesce(jsonb_agg(jsonb_build_object('index', r -> 'index', 'sample_id', p.sample_id,
                                               'problem', r #> '{read,problem}') order by (r ->> 'index')::integer), '[]')
    into v_rejected
    from jsonb_array_elements(v_read) as r
    -- The sample's own id, when it has one (a rejected sample was not read).
    cross join lateral (select case when jsonb_typeof(v_body #> array['samples', r ->> 'index', 'sample_id']) = 'string'
                                    then v_body #>> array['samples', r ->> 'index', 'sample_id'] end as sample_id) as p
   where r -> 'read' ? 'problem';
  select coalesce(array_agg(k.sample_id order by k.sample_id), '{}'),
         coalesce(array_agg(k.type order by k.sample_id), '{}'),
         coalesce(array_agg(k.value order by k.sample_id), '{}'),
         coalesce(array_agg(k.start_at order by k.sample_id), '{}'),
         coalesce(array_agg(k.end_at order by k.sample_id), '{}'),
         coalesce(array_agg(k.source_app order by k.sample_id), '{}'),
         coalesce(array_agg(k.device order by k.sample_id), '{}'),
         -- A sleep sample counts on the morning after: its start six hours on (a night's
         -- segments before and after midnight land on the same day, a nap on its own).
         coalesce(array_agg(((case when k.type = 'sleep' then k.start_at + interval '6 hours' else k.start_at end)
                             at time zone v_zone)::date order by k.sample_id), '{}')
    into v_ids, v_types, v_values, v_starts, v_ends, v_apps, v_devices, v_days
    from (select distinct on (r #>> '{read,sample_id}') r #>> '{read,sample_id}' as sample_id, r #>> '{read,type}' as type,
                 (r #>> '{read,value}')::numeric as value, (r #>> '{read,start_at}')::timestamptz as start_at,
                 (r #>> '{read,end_at}')::timestamptz as end_at, r #>> '{read,source_app}' as source_app,
                 r #>> '{read,device}' as device
            from jsonb_array_elements(v_read) as r
           where not r -> 'read' ? 'problem'
           order by r #>> '{read,sample_id}', (r ->> 'index')::integer desc) as k;

  -- What the account holds of them: new ones, changed ones (their old days are touched too).
  select coalesce(array_agg(b.sample_id) filter (where h.sample_id is null), '{}'),
         -- The day is left out: a sample sent again after a change of time zone stays on
         -- the day it counted on.
         coalesce(array_agg(b.sample_id) filter (where h.sample_id is not null
                    and (h.type::text, h.value, h.start_at, h.end_at, h.source_app, h.device)
                        is distinct from (b.type, b.value, b.start_at, b.end_at, b.source_app, b.device)), '{}'),
         coalesce(array_agg(h.type::text) filter (where h.sample_id is not null), '{}'),
         coalesce(array_agg(h.day) filter (where h.sample_id is not null), '{}')
    into v_new, v_changed, v_deleted_types, v_deleted_days
    from unnest(v_ids, v_types, v_values, v_starts, v_ends, v_apps, v_devices, v_days)
         as b (sample_id, type, value, start_at, end_at, source_app, device, day)
    left join app.health_samples as h
      on h.user_id = v_user_id and h.platform = v_platform and h.sample_id = b.sample_id;
  v_touched_types := v_deleted_types || v_types;
  v_touched_days := v_deleted_days || v_days;
  -- The samples to write as rows of a JSON list: on Citus a write from a list of several
  -- arrays goes through COPY, which row-level security refuses.
  v_batch := (select coalesce(jsonb_agg(jsonb_build_object('sample_id', b.sample_id, 'type', b.type, 'value', b.value,
                                                            'start_at', b.start_at, 'end_at', b.end_at,
                                                            'source_app', b.source_app, 'device', b.device,
                                                            'day', b.day)), '[]')
                from unnest(v_ids, v_types, v_values, v_starts, v_ends, v_apps, v_devices, v_days)
                     as b (sample_id, type, value, start_at, end_at, source_app, device, day)
               where b.sample_id = any (v_new || v_changed));

  -- A changed sample is written again: on Citus an update from a list of rows is refused
  -- ("STABLE functions used in UPDATE queries cannot be called with column references").
  delete from app.health_samples as h
   where h.user_id = v_user_id and h.platform = v_platform and h.sample_id = any (v_changed);
  insert into app.health_samples (user_id, platform, sample_id, type, value, start_at, end_at, source_app, device, day)
  select u.user_id, v_platform, b.sample_id, b.type, b.value, b.start_at, b.end_at, b.source_app, b.device, b.day
    from app.user_settings as u
   cross join jsonb_to_recordset(v_batch) as b (sample_id text, type text, value numeric, start_at timestamptz,
                                                end_at timestamptz, source_app text, device text, day date)
   where u.user_id = v_user_id and b.sample_id = any (v_new || v_changed)
  -- On Citus an insert from a list with an upsert clause goes through an intermediate
  -- result, one without it through COPY, which row-level security refuses (docs/scaling.md).
  on conflict do nothing;

  -- The platform's deletions: gone from the samples and from their days.
  with gone as (
    delete from app.health_samples as h
     where h.user_id = v_user_id and h.platform = v_platform and h.sample_id = any (v_deleted_ids)
    returning h.type::text as type, h.day)
  select count(*), coalesce(array_agg(g.type), '{}'), coalesce(array_agg(g.day), '{}')
    into v_deleted, v_deleted_types, v_deleted_days
    from gone as g;
  perform app.refresh_health_days(v_user_id, v_touched_types || v_deleted_types, v_touched_days || v_deleted_days);
  if 'weight' = any (v_types || v_deleted_types) then
    perform app.weigh_ins_from_health(v_user_id, v_platform, v_ids, v_types, v_values, v_ends, v_new || v_changed,
                                      v_deleted_ids);
  end if;

  return jsonb_build_object('new', cardinality(v_new), 'changed', cardinality(v_changed),
                            'unchanged', cardinality(v_ids) - cardinality(v_new) - cardinality(v_changed),
                            'deleted', v_deleted, 'rejected', v_rejected);
end
$$;

-- GET /health/daily?type=&from=&to=: each day's value of a type over a range of local days
-- (default the last 30, at most 366), oldest first: one index range of app.health_days.
create or replace function api.health_daily(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_range record := app.date_range_within(p_args, v_user_id, 30, 366);
  v_type text := p_args ->> 'type';
begin
  if app.health_units(v_type) is null then
    perform app.raise_parameter_problem('type', obj_description('app.health_sample_type'::regtype, 'pg_type'));
  end if;
  return jsonb_build_object('type', v_type, 'from', v_range.from_date, 'to', v_range.to_date,
    'items', coalesce((select jsonb_agg(jsonb_build_object('date', d.day, 'value', d.value, 'source', d.source,
                                                           'samples', d.samples) order by d.day)
                         from app.health_days as d
                        where d.user_id = v_user_id and d.type = v_type::app.health_sample_type
                          and d.day between v_range.from_date and v_range.to_date), '[]'));
end
$$;
