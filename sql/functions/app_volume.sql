-- The overlap rule of training volume, in one place: a working set counts 1 set for each
-- primary muscle of its exercise and 0.5 for each secondary muscle. Warm-ups count
-- nothing (the caller filters set_type <> 'warmup'). Analytics and reporting both use it.

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

grant execute on function app.muscle_credits(text[], text[]) to liftbase_api, liftbase_reporter;
