-- Training volume, each rule in one place: which sets are working sets, and how a set
-- credits the muscles of its exercise (the overlap rule). Analytics and reporting both use
-- them.

-- A working set is any set that is not a warm-up: drop sets and sets to failure are real
-- work, so they count wherever work is counted (volume, the weekly summary and the session
-- totals, the best set by estimated one-rep max, the RPE distribution, training warnings,
-- reporting). Warm-ups only prepare for it. Progression reads a narrower set
-- (app.counts_for_progression). A SQL expression, so it is inlined into each query.
create or replace function app.counts_as_working_set(p_set_type text)
returns boolean
language sql
immutable
parallel safe
as $$ select p_set_type <> 'warmup' $$;

-- The overlap rule: a working set counts 1 set for each primary muscle of its exercise and
-- 0.5 for each secondary muscle.
create or replace function app.muscle_credits(p_primary text[], p_secondary text[])
returns table (muscle text, credit numeric)
language sql
immutable
parallel safe
as $$
  select m, 1.0 from unnest(p_primary) as m
  union all
  select m, 0.5 from unnest(p_secondary) as m where m <> all (p_primary)
$$;

grant execute on function app.counts_as_working_set(text) to liftbase_api;
grant execute on function app.muscle_credits(text[], text[]) to liftbase_api, liftbase_reporter;
