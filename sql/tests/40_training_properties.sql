-- Training properties on random sessions (fixed seed, ≥ 100 cases each), run as the API
-- role so that grants and row-level security are part of what is tested:
--   A. a session built from n exercise adds and r removes has n − r exercises, each with
--      the number of sets added;
--   B. any non-empty valid exercise list is accepted and read back identical;
--   C. loading a template yields exactly its exercises and set counts;
--   D. copying the last session reproduces names, set counts, reps and weights.
begin;
\ir support/helpers.psql
select plan(5);
select setseed(0.4242);

select pg_temp.sign_up('props', 'training-props@example.com', 'property test');

-- A random valid set with every optional field either present or absent.
create function pg_temp.random_set() returns jsonb
language sql volatile as $$
  select jsonb_strip_nulls(jsonb_build_object(
    'reps', floor(random() * 30)::integer,
    'weight_kg', round((random() * 250)::numeric, 2),
    'rpe', case when random() < 0.6 then (2 + floor(random() * 17)) / 2.0 end,
    'rir', case when random() < 0.3 then floor(random() * 6)::integer end,
    'set_type', pg_temp.pick('["warmup", "working", "working", "dropset", "failure"]'),
    'tempo', case when random() < 0.3 then pg_temp.pick('["3-1-1-0", "4-0-X-1", "2-0-2-0"]') #>> '{}' end,
    'rest_seconds', case when random() < 0.5 then 30 * floor(random() * 10)::integer end))
$$;

-- A random exercise that takes reps and a load (weight_reps or bodyweight_reps): by
-- catalog id, by catalog name, or free text; with n sets.
create function pg_temp.random_exercise(p_sets integer) returns jsonb
language plpgsql volatile as $$
declare
  v_exercise app.exercises;
  v_sets jsonb := (select coalesce(jsonb_agg(pg_temp.random_set()), '[]') from generate_series(1, p_sets));
begin
  select e.* into v_exercise from app.exercises as e
   where e.source = 'builtin' and e.tracking_type in ('weight_reps', 'bodyweight_reps') order by random() limit 1;
  return case floor(random() * 3)::integer
    when 0 then jsonb_build_object('exercise_id', v_exercise.id, 'sets', v_sets)
    when 1 then jsonb_build_object('exercise_name', v_exercise.name, 'sets', v_sets)
    else jsonb_build_object('exercise_name', 'Custom move ' || floor(random() * 1000)::integer, 'sets', v_sets) end;
end $$;

-- Sets as read back, compared with what was sent (absent optional fields read as null,
-- set_type defaults to working).
create function pg_temp.normalized(p_sets jsonb) returns jsonb
language sql immutable as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'reps', (s ->> 'reps')::numeric, 'weight_kg', (s ->> 'weight_kg')::numeric, 'rpe', (s ->> 'rpe')::numeric,
           'rir', (s ->> 'rir')::numeric, 'set_type', coalesce(s ->> 'set_type', 'working'), 'tempo', s ->> 'tempo',
           'rest_seconds', (s ->> 'rest_seconds')::numeric) order by n), '[]')
    from jsonb_array_elements(p_sets) with ordinality as x (s, n)
$$;

set local role liftbase_api;

-- B: random lists are accepted and read back identical.
create temporary table sent (n integer primary key, exercises jsonb, answer jsonb);
insert into sent (n, exercises)
select n, (select jsonb_agg(pg_temp.random_exercise(1 + floor(random() * 5)::integer))
             from generate_series(1, 1 + (n % 6) + floor(random() * 2)::integer))
  from generate_series(1, 100) as n;
update sent set answer = api.sessions_create((select token from tokens),
  jsonb_build_object('session_date', '2026-01-01'::date + n, 'name', 'Session ' || n, 'exercises', exercises), '{}');
select is((select count(*)::integer from sent as s
            where jsonb_array_length(s.answer -> 'exercises') <> jsonb_array_length(s.exercises)
               or exists (select from generate_series(0, jsonb_array_length(s.exercises) - 1) as i
                           where pg_temp.normalized(s.answer -> 'exercises' -> i -> 'sets')
                                 <> pg_temp.normalized(s.exercises -> i -> 'sets')
                              or (s.exercises -> i ? 'exercise_id'
                                  and s.answer -> 'exercises' -> i ->> 'exercise_id' <> s.exercises -> i ->> 'exercise_id')
                              or (s.exercises -> i ? 'exercise_name'
                                  and lower(s.answer -> 'exercises' -> i ->> 'exercise_name') <> lower(s.exercises -> i ->> 'exercise_name')))),
  0, 'any non-empty valid exercise list is accepted and read back identical (100 random sessions)');

-- A: n adds, r removes (PUT with the remaining exercises) → n − r exercises, sets as added.
create temporary table edits (n integer primary key, session_id uuid, kept jsonb, answer jsonb);
insert into edits (n, session_id, kept)
select s.n, (s.answer ->> 'id')::uuid,
       (select jsonb_agg(e order by i) from jsonb_array_elements(s.exercises) with ordinality as x (e, i)
         where i = 1 or random() < 0.5)
  from sent as s;
update edits set answer = api.session_replace((select token from tokens),
  jsonb_build_object('session_date', '2026-06-01', 'exercises', kept), jsonb_build_object('id', session_id));
select is((select count(*)::integer from edits as d join sent as s using (n)
            where jsonb_array_length(d.answer -> 'exercises') <> jsonb_array_length(d.kept)
               or (select array_agg(jsonb_array_length(e -> 'sets') order by i)
                     from jsonb_array_elements(d.answer -> 'exercises') with ordinality as x (e, i))
                  <> (select array_agg(jsonb_array_length(e -> 'sets') order by i)
                        from jsonb_array_elements(d.kept) with ordinality as x (e, i))),
  0, 'n exercise adds and r removes leave n − r exercises with the sets added (100 cases)');
select ok((select count(*) filter (where jsonb_array_length(d.kept) < jsonb_array_length(s.exercises)) > 50
             from edits as d join sent as s using (n)), 'most cases removed at least one exercise');

-- C: a template loaded into a session keeps its exercises and set counts.
create temporary table loads (n integer primary key, template jsonb, answer jsonb);
insert into loads (n, template)
select n, api.template_get((select token from tokens), null,
            jsonb_build_object('id', pg_temp.pick('["push", "pull", "legs", "upper", "lower", "full_body"]') #>> '{}'))
  from generate_series(1, 100) as n;
update loads set answer = api.sessions_create((select token from tokens),
  jsonb_build_object('session_date', '2027-01-01'::date + n, 'exercises',
    (select jsonb_agg(jsonb_build_object('exercise_id', e -> 'exercise_id',
                                         'sets', (select jsonb_agg(st || '{"weight_kg": 60}') from jsonb_array_elements(e -> 'sets') as st)))
       from jsonb_array_elements(template -> 'exercises') as e)), '{}');
select is((select count(*)::integer from loads
            where (select array_agg(array[e ->> 'exercise_name', jsonb_array_length(e -> 'sets')::text] order by i)
                     from jsonb_array_elements(answer -> 'exercises') with ordinality as x (e, i))
               <> (select array_agg(array[e ->> 'exercise_name', jsonb_array_length(e -> 'sets')::text] order by i)
                     from jsonb_array_elements(template -> 'exercises') with ordinality as x (e, i))),
  0, 'a session loaded from a template has exactly its exercises and set counts (100 cases)');

-- D: copying the last session reproduces names, set counts, reps and weights. Each new
-- session is dated after every earlier one, so it is the last; its copies are dated before.
create temporary table copies (n integer primary key, last jsonb, copy jsonb);
do $$
declare
  i integer;
  v_last jsonb;
begin
  for i in 1 .. 100 loop
    perform api.sessions_create((select token from tokens),
      jsonb_build_object('session_date', '2040-01-01'::date + i,
                         'exercises', (select jsonb_agg(pg_temp.random_exercise(1 + floor(random() * 4)::integer))
                                         from generate_series(1, 1 + floor(random() * 5)::integer))), '{}');
    v_last := api.session_last((select token from tokens), null, '{}');
    insert into copies values (i, v_last, api.sessions_create((select token from tokens),
      jsonb_build_object('session_date', '2020-01-01'::date + i, 'exercises', v_last -> 'exercises'), '{}'));
  end loop;
end
$$;
select is((select count(*)::integer from copies
            where (select jsonb_agg(jsonb_build_object('name', e ->> 'exercise_name',
                     'sets', (select jsonb_agg(jsonb_build_array(s -> 'reps', s -> 'weight_kg')) from jsonb_array_elements(e -> 'sets') as s)))
                     from jsonb_array_elements(copy -> 'exercises') as e)
               <> (select jsonb_agg(jsonb_build_object('name', e ->> 'exercise_name',
                     'sets', (select jsonb_agg(jsonb_build_array(s -> 'reps', s -> 'weight_kg')) from jsonb_array_elements(e -> 'sets') as s)))
                     from jsonb_array_elements(last -> 'exercises') as e)
               or last ->> 'session_date' <> ('2040-01-01'::date + n)::text),
  0, 'copying the last session reproduces names, set counts, reps and weights (100 cases)');

select * from finish();
rollback;
